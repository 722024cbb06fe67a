export * from './json.js';
export * from './content.js';
export * from './tool-call.js';
export * from './plan.js';
export * from './stop-reason.js';
export * from './update.js';
export * from './session.js';
export * from './methods.js';

export * from './session-state.js';
export * from './entities.js';
export { patchMeta, patchField } from './meta-patch.js';
export * from './subagents.js';

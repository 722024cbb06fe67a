export * from './model/index.js';
export * from './errors.js';
export * from './jsonrpc.js';
export * from './version.js';
export * from './validation/index.js';
export * from './codec/index.js';
export * from './state/index.js';

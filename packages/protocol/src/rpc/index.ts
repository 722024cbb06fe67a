export * from './transport.js';
export * from './ndjson.js';
export * from './stream-transport.js';
export * from './peer.js';
export * from './request-id.js';
export * from './child.js';
export * from '../node/process-group.js';
export { MAX_JSON_DEPTH } from './json-guard.js';

export * from './transport.js';
export * from './ndjson.js';
export * from './stream-transport.js';
export * from './peer.js';
export * from './child.js';
export * from './process-group.js';

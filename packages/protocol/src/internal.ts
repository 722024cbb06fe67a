/**
 * Shared with acp-kit's own packages; not a public API and without a compatibility promise.
 *
 * @module
 */
export * from './node/confined-fs.js';
export * from './codec/util.js';
export * from './codec/v1-shapes.js';
export * from './codec/v2-shapes.js';
export * from './json.js';
export * from './lazy-map.js';
export * from './lazy-crypto.js';
export * from './package-version.js';
export * from './usage-meta.js';
export * from './last-turn-meta.js';
export { isSharedUnstableKind } from './codec/unstable-updates.js';
export * from './validation/schema-source.js';
export * from './rpc/message-text.js';
export * from './node/http.js';

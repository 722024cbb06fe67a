/**
 * Shared with acp-kit's own packages; not a public API and without a compatibility promise.
 *
 * @module
 */
export * from './error-text.js';
export * from './lifecycle/index.js';
export * from './replay.js';

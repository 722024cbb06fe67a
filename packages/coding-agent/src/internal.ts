/**
 * Shared with acp-kit's own packages; not a public API and without a compatibility promise.
 *
 * @module
 */
export * from './terminal.js';

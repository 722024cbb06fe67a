/**
 * Captures: the recorded frames of an ACP connection (`.acp.jsonl`) and what the tools compute from
 * them: reading (also acp-devtools and JSON exports), redaction, latency, stats and validation. The
 * diff of two captures is `@acp-kit/tools/captures/diff`: it loads the `diff` package.
 *
 * @module
 */
export * from './capture.js';
export * from './frame.js';
export * from './scan.js';
export * from './redact.js';
export * from './latency.js';
export * from './stats.js';
export * from './hop-latency.js';
export * from './validate.js';
export * from './violation.js';
export * from './devtools-export.js';
export * from './json-export.js';

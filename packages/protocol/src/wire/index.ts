/**
 * TypeScript types of the ACP wire, generated from the official JSON schemas
 * (`scripts/gen-wire-types.mjs`): one type per schema `$defs` entry, per protocol version.
 * Use as `import type { v1, v2 } from './wire/index.js'` -> `v1.SessionUpdate`.
 * @packageDocumentation
 */
export * as v1 from './v1.js';
export * as v2 from './v2.js';

/**
 * Runtime validation of ACP wire messages against the official JSON schemas (v1 and v2).
 * @packageDocumentation
 */
export type { ValidationFailure, Side, MethodKind, WireValidator } from './types.js';
export { getValidator } from './validator.js';
export { formatFailure, joinPath, concatPath } from './failure.js';
export { loadSchema, schemaLocation, type SchemaFlavor } from './schema-source.js';

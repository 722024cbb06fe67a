import { AcpError, ErrorCode } from '../errors.js';
import type { AnySessionUpdate } from '../model/update.js';
import type { ValidationFailure, WireValidator } from '../validation/types.js';

import type { JsonObject } from '../model/json.js';

/** A plain JSON object (not an array, not `null`): the model's {@link JsonObject}. */
export type { JsonObject };

export function isObj(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `a.b` / `a[0]` style join (no leading dot for an empty prefix). */
function concat(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path) return prefix;
  return path.startsWith('[') ? prefix + path : `${prefix}.${path}`;
}

/** `params.update.toolCallId: must have required property 'toolCallId'`. */
export function describeFailure(prefix: string, f: ValidationFailure): string {
  const path = concat(prefix, f.path);
  return path ? `${path}: ${f.message}` : f.message;
}

/** -32602 naming the JSON path (ACP-V2-EXT-04: a known shape with a bad body is an error). */
export function invalidParams(prefix: string, f: ValidationFailure): AcpError {
  const path = concat(prefix, f.path);
  return AcpError.invalidParams(describeFailure(prefix, f), { path });
}

/**
 * A peer's *result* that does not match the schema. Same code as bad params (the data is invalid),
 * but the message says `Invalid result` and the path starts at `result`.
 */
export function invalidResult(prefix: string, f: ValidationFailure): AcpError {
  const path = concat(prefix, f.path);
  return new AcpError(ErrorCode.InvalidParams, `Invalid result: ${describeFailure(prefix, f)}`, { path });
}

/** Throws -32602 when `value` is not valid params of `wireMethod` (no-op without a validator). */
export function checkParams(validator: WireValidator | null, wireMethod: string, value: unknown): void {
  if (!validator) return;
  const f = validator.params(wireMethod, value);
  if (f) throw invalidParams('params', f);
}

/** Throws an `Invalid result` error when `value` is not a valid result of `wireMethod`. */
export function checkResult(validator: WireValidator | null, wireMethod: string, value: unknown): void {
  if (!validator) return;
  const f = validator.result(wireMethod, value);
  if (f) throw invalidResult('result', f);
}

/** A copy of `o` without the keys whose value is `undefined` (wire objects never carry them). */
export function compact(o: JsonObject): JsonObject {
  for (const k in o) {
    if (o[k] === undefined) {
      const out: JsonObject = {};
      for (const key in o) if (o[key] !== undefined) out[key] = o[key];
      return out;
    }
  }
  return o;
}

/**
 * Copies `_meta` from `from` to `to` when present and not `null` (scoped metas: null = omitted).
 * `to` is a wire or neutral object that may carry `_meta` (every ACP object may, ACP-ALL-EXT-01).
 */
export function withMeta<T extends object>(to: T, from: object): T {
  const meta = '_meta' in from ? from._meta : undefined;
  if (meta !== undefined && meta !== null) Object.assign(to, { _meta: meta });
  return to;
}

/** The values of a neutral marker-or-boolean: `true`/object = supported (ACP-V2-CAP-01). */
export function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== false;
}

/** `{}` for a supported v2/v1 object marker, omitted otherwise. */
export function marker(on: boolean | undefined): JsonObject | undefined {
  return on ? {} : undefined;
}

/** Keeps only the `true` flags (neutral capabilities: absent = unsupported). */
export function compactBool<T extends Record<string, boolean | undefined>>(o: T): { [K in keyof T]?: true } {
  const out: { [K in keyof T]?: true } = {};
  for (const k in o) if (o[k] === true) out[k] = true;
  return out;
}

/**
 * True for the hot shape `{sessionUpdate, messageId?, content: {type: "text", text}}` with
 * nothing else: valid in both schemas whenever `messageId` is a string (v1 also: absent/`null`),
 * so decoders skip the schema run for it (100k chunks/s budget).
 */
export function isPlainTextChunk(w: JsonObject, messageIdRequired: boolean): boolean {
  const c = w.content;
  if (!isObj(c) || c.type !== 'text' || typeof c.text !== 'string') return false;
  const id = w.messageId;
  if (typeof id !== 'string' && (messageIdRequired || (id !== undefined && id !== null))) return false;
  let n = 0;
  for (const _k in c) n++;
  if (n !== 2) return false;
  for (const k in w) if (k !== 'sessionUpdate' && k !== 'messageId' && k !== 'content') return false;
  return true;
}

/** A session update's wire body (`params.update`) as an object, or -32602 naming the field. */
export function updateBody(wire: unknown): JsonObject {
  if (!isObj(wire)) throw AcpError.invalidParams('params.update: must be object', { path: 'params.update' });
  return wire;
}

/**
 * An update decoder's result as the list `decode` returns. `out` is schema-checked and mapped to
 * the neutral shape (known kinds) or an unknown kind kept raw (`undefined`: dropped): this is the
 * one place a checked wire object is taken as the neutral update.
 */
export function decodedUpdates(out: JsonObject | undefined): AnySessionUpdate[] {
  return out === undefined ? [] : [out as AnySessionUpdate];
}

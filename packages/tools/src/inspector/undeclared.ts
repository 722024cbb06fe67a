import {
  defsOf,
  isSchemaObject,
  loadSchema,
  methodTable,
  type JsonSchema,
  type MethodDefs,
  at,
} from '@acp-kit/protocol/internal';
import type { FieldMarks } from './api-types.js';

export type { FieldMarks } from './api-types.js';

type Cx = { defs: Record<string, JsonSchema> };

function resolve(s: unknown, cx: Cx): JsonSchema | undefined {
  let cur = isSchemaObject(s) ? s : undefined;
  for (let i = 0; i < 32 && cur; i++) {
    const ref = cur.$ref;
    if (typeof ref !== 'string') break;
    cur = ref.startsWith('#/$defs/') ? cx.defs[ref.slice(8)] : undefined;
  }
  return cur;
}

/** The sub-schemas of an array keyword (`allOf`, `anyOf`, `oneOf`); none when absent or malformed. */
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The entries of an object keyword (`properties`); none when absent or malformed. */
function entries(v: unknown): Array<[string, unknown]> {
  return isSchemaObject(v) ? Object.entries(v) : [];
}

/** The direct `const` constraints of a branch (the discriminators, e.g. `sessionUpdate`, `type`). */
function consts(s: JsonSchema, cx: Cx, out: Map<string, unknown> = new Map(), depth = 0): Map<string, unknown> {
  if (depth > 8) return out;
  for (const [k, p] of entries(s.properties)) {
    const r = resolve(p, cx);
    if (r && 'const' in r) out.set(k, r.const);
  }
  for (const sub of list(s.allOf)) {
    const r = resolve(sub, cx);
    if (r) consts(r, cx, out, depth + 1);
  }
  return out;
}

function typeOk(s: JsonSchema, value: unknown): boolean {
  const t = s.type;
  if (t === undefined) return true;
  const ts = Array.isArray(t) ? t : [t];
  const actual =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'number'
          ? Number.isInteger(value)
            ? 'integer'
            : 'number'
          : typeof value;
  return ts.some((x) => x === actual || (x === 'number' && actual === 'integer'));
}

interface Declared {
  props: Map<string, unknown[]>;
  /** any key is declared (a map: additionalProperties schema / patternProperties) */
  open: unknown[] | undefined;
  /** no schema information at all (leave the value alone) */
  unknown: boolean;
}

function collect(schema: unknown, value: unknown, cx: Cx, d: Declared, depth = 0): void {
  const s = resolve(schema, cx);
  if (!s || depth > 24) {
    d.unknown = true;
    return;
  }
  for (const [k, p] of entries(s.properties)) {
    const known = d.props.get(k) ?? [];
    known.push(p);
    d.props.set(k, known);
  }
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== false && typeof ap === 'object') (d.open ??= []).push(ap);
  if (ap === true || s.patternProperties) (d.open ??= []).push({});
  for (const sub of list(s.allOf)) collect(sub, value, cx, d, depth + 1);
  const branches = [...list(s.anyOf), ...list(s.oneOf)];
  if (branches.length > 0) {
    const objectish = branches.map((b) => resolve(b, cx)).filter((b): b is JsonSchema => !!b && typeOk(b, value));
    const matching = objectish.filter((b) => {
      const c = consts(b, cx);
      for (const [k, want] of c) if (at(value, k) !== want) return false;
      return true;
    });
    const chosen = matching.length > 0 ? matching : objectish;
    if (chosen.length === 0) d.unknown = true;
    for (const b of chosen) collect(b, value, cx, d, depth + 1);
  }
  if (!s.properties && !s.allOf && branches.length === 0 && ap === undefined && s.type === undefined) d.unknown = true;
}

function walk(schemas: unknown[], value: unknown, path: string, cx: Cx, out: FieldMarks, depth: number): void {
  if (depth > 40 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const sch of schemas) {
      const s = resolve(sch, cx);
      if (!s) continue;
      if (s.items) items.push(s.items);
      for (const b of [...list(s.anyOf), ...list(s.oneOf), ...list(s.allOf)]) {
        const r = resolve(b, cx);
        if (r?.items) items.push(r.items);
      }
    }
    if (items.length === 0) return;
    value.forEach((v, i) => walk(items, v, `${path}[${i}]`, cx, out, depth + 1));
    return;
  }
  const d: Declared = { props: new Map(), open: undefined, unknown: false };
  for (const s of schemas) collect(s, value, cx, d);
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    if (k === '_meta') {
      out.meta.push(p);
      continue;
    }
    const sub = d.props.get(k) ?? d.open;
    if (!sub) {
      if (!d.unknown) out.undeclared.push(p);
      continue;
    }
    walk(sub, v, p, cx, out, depth + 1);
  }
}

const tables = new Map<number, { cx: Cx; methods: Map<string, MethodDefs> }>();

function schemaOf(version: 1 | 2): { cx: Cx; methods: Map<string, MethodDefs> } {
  let t = tables.get(version);
  if (!t) {
    // the unstable schema is the superset: a field it declares is known to the protocol
    const schema = loadSchema(version, 'unstable');
    t = { cx: { defs: defsOf(schema) }, methods: methodTable(schema) };
    tables.set(version, t);
  }
  return t;
}

/**
 * Marks the fields of one JSON-RPC message that the official schema of `version` does not declare,
 * and every `_meta`. `requestMethod` is the method a response answers (its result type).
 */
export function markFields(version: 1 | 2, message: unknown, requestMethod?: string): FieldMarks {
  const out: FieldMarks = { undeclared: [], meta: [] };
  if (!isSchemaObject(message)) return out;
  const { cx, methods } = schemaOf(version);
  const m = message;
  const method = typeof m.method === 'string' ? m.method : requestMethod;
  const defs = method !== undefined ? methods.get(method) : undefined;
  const properties: Record<string, JsonSchema> = {
    jsonrpc: {},
    id: {},
    method: {},
    params: defs && typeof m.method === 'string' ? { $ref: `#/$defs/${defs.params}` } : {},
    result: defs?.result && typeof m.method !== 'string' ? { $ref: `#/$defs/${defs.result}` } : {},
    error: cx.defs.Error ? { $ref: '#/$defs/Error' } : {},
  };
  const envelope: JsonSchema = { type: 'object', properties };
  walk([envelope], m, '', cx, out, 0);
  return out;
}

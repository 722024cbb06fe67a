import { isSchemaObject as isObject, type JsonSchema } from './schema-source.js';

/**
 * Rewrites the official schema into an equivalent one that validates faster and fails with
 * precise errors. The ACP schemas express tagged unions as `anyOf`/`oneOf` over branches that
 * each pin a discriminator (`type`, `sessionUpdate`, ...) with `const`; run as written, every
 * branch is tried and a failure only says "must match a schema in anyOf". Rewritten:
 *
 * - tagged union -> `allOf: [{ if: { tag = c }, then: branch }, ...]` plus the tag's allowed
 *   values (closed v1 unions) or the `other` fallback (open v2 unions), and a `none` branch (tag
 *   absent or null) when there is one: only the matching branch runs, and its own error surfaces;
 * - union of `const`s (+ optional open fallback) -> `enum` (or the bare type when open);
 * - `anyOf: [X, { type: 'null' }]` -> `if: { type: 'null' }, else: X`.
 *
 * Only shapes whose rewrite is exactly equivalent are touched; anything else is left as written.
 */
export function transformSchema(doc: JsonSchema): { schema: JsonSchema; unions: Map<string, TaggedUnion> } {
  const unions = new Map<string, TaggedUnion>();
  const schema = walkObject(doc, '#', unions);
  return { schema, unions };
}

/** A rewritten tagged union: where its branches now live, keyed by discriminator value. */
export interface TaggedUnion {
  tag: string;
  /** Discriminator value -> JSON pointer (from the document root, `#/...`) of that branch. */
  branches: Map<string, string>;
  /** True when the schema admits other discriminator values (v2's open unions). */
  open: boolean;
}

/** Keys that may sit beside a union without changing what it accepts. */
function isAnnotation(key: string): boolean {
  return (
    key === 'description' ||
    key === 'title' ||
    key === 'default' ||
    key === '$comment' ||
    key === 'discriminator' ||
    key.startsWith('x-')
  );
}

function walk(node: unknown, pointer: string, unions: Map<string, TaggedUnion>): unknown {
  if (Array.isArray(node)) return node.map((item, i) => walk(item, `${pointer}/${i}`, unions));
  if (!isObject(node)) return node;
  return walkObject(node, pointer, unions);
}

function walkObject(node: JsonSchema, pointer: string, unions: Map<string, TaggedUnion>): JsonSchema {
  const out: JsonSchema = {};
  // `not` subtrees stay as written: their errors are never shown, and the open-union check
  // (`excludesExactly`) reads the fallback's `not` in its original shape.
  for (const [k, v] of Object.entries(node)) out[k] = k === 'not' ? v : walk(v, `${pointer}/${escape(k)}`, unions);
  return rewriteUnion(out, pointer, unions) ?? out;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function rewriteUnion(node: JsonSchema, pointer: string, unions: Map<string, TaggedUnion>): JsonSchema | undefined {
  const keyword = Array.isArray(node.anyOf) ? 'anyOf' : Array.isArray(node.oneOf) ? 'oneOf' : undefined;
  const members: unknown = keyword ? node[keyword] : undefined;
  if (!keyword || !Array.isArray(members)) return undefined;
  const rest = Object.keys(node).filter((k) => k !== keyword);
  const extra = rest.filter((k) => !isAnnotation(k));
  // unevaluated* would see properties evaluated by the rewritten union differently: leave alone.
  if (extra.some((k) => k.startsWith('unevaluated'))) return undefined;
  const branches = members.filter(isObject);
  if (branches.length !== members.length || branches.length < 2) return undefined;
  // `{ K..., anyOf: U }` is `{ K..., allOf: [..., U'] }`: the union goes last into allOf.
  const priorAllOf: unknown[] = Array.isArray(node.allOf) ? node.allOf : [];
  const at = extra.length ? `${pointer}/allOf/${priorAllOf.length}` : pointer;
  const annotations: JsonSchema = {};
  if (!extra.length) for (const k of rest) if (k !== 'discriminator') annotations[k] = node[k];
  const core =
    rewriteTagged(branches, annotations, at, unions) ??
    rewriteConsts(keyword, branches, annotations) ??
    rewriteNullable(keyword, branches, annotations);
  if (!core || !extra.length) return core;
  const out: JsonSchema = { ...node };
  delete out[keyword];
  delete out.discriminator;
  out.allOf = [...priorAllOf, core];
  return out;
}

/** The discriminator `const` a branch pins, if it is a tagged object branch on `tag`. */
function tagValue(branch: JsonSchema, tag: string): string | undefined {
  const props = branch.properties;
  if (branch.type !== 'object' || !isObject(props)) return undefined;
  const p = props[tag];
  if (!isObject(p) || typeof p.const !== 'string') return undefined;
  if (!Array.isArray(branch.required) || !branch.required.includes(tag)) return undefined;
  return p.const;
}

/** v2's open fallback: `{ type: object, properties: { tag: { type: string } }, required: [tag], not: {...} }`. */
function isOpenFallback(branch: JsonSchema, tag: string): boolean {
  const props = branch.properties;
  if (branch.type !== 'object' || !isObject(props) || !isObject(branch.not)) return false;
  const p = props[tag];
  return (
    isObject(p) &&
    p.type === 'string' &&
    p.const === undefined &&
    Array.isArray(branch.required) &&
    branch.required.includes(tag)
  );
}

/** `{ type: object, properties: { tag: { type: 'null' } } }`: the tag absent or null. */
function isNoneBranch(branch: JsonSchema, tag: string): boolean {
  const props = branch.properties;
  if (branch.type !== 'object' || !isObject(props) || Object.keys(props).length !== 1) return false;
  const p = props[tag];
  if (!isObject(p) || p.type !== 'null' || Object.keys(p).some((k) => k !== 'type' && k !== 'description'))
    return false;
  return Object.keys(branch).every((k) => k === 'type' || k === 'properties' || k === 'title' || k === 'description');
}

/** Whether the fallback's `not` rules out exactly the tagged values (so it matches only the others). */
function excludesExactly(fallback: JsonSchema, tag: string, values: string[]): boolean {
  const not = fallback.not;
  if (!isObject(not) || !Array.isArray(not.anyOf)) return false;
  const excluded = not.anyOf.map((b) => (isObject(b) ? tagValue(b, tag) : undefined));
  return excluded.length === values.length && excluded.every((v) => v !== undefined && values.includes(v));
}

function rewriteTagged(
  branches: JsonSchema[],
  annotations: JsonSchema,
  pointer: string,
  unions: Map<string, TaggedUnion>,
): JsonSchema | undefined {
  const props = branches.map((b) => b.properties).find(isObject);
  if (!props) return undefined;
  for (const tag of Object.keys(props)) {
    const values: string[] = [];
    let fallback: JsonSchema | undefined;
    let none: JsonSchema | undefined;
    let ok = true;
    for (const b of branches) {
      const v = tagValue(b, tag);
      if (v !== undefined && !values.includes(v)) values.push(v);
      else if (v === undefined && !fallback && isOpenFallback(b, tag)) fallback = b;
      else if (v === undefined && !none && isNoneBranch(b, tag)) none = b;
      else {
        ok = false;
        break;
      }
    }
    if (!ok || values.length < 2) continue;
    if (fallback && !excludesExactly(fallback, tag, values)) continue;
    // With distinct tags at most one tagged branch can match, so anyOf and oneOf agree; the
    // fallback excludes every tag through its `not`, so it is exclusive too.
    const cases: JsonSchema[] = [];
    const map = new Map<string, string>();
    let i = 0;
    for (const b of branches) {
      if (b === fallback || b === none) continue;
      const v = tagValue(b, tag);
      if (v === undefined) continue; // not reached: every other branch is tagged (checked above)
      cases.push({ if: { required: [tag], properties: { [tag]: { const: v } } }, then: b });
      map.set(v, `${pointer}/allOf/${i}/then`);
      i++;
    }
    // Absent (and null) tags are the `none` branch's; the fallback only takes other strings.
    const known: unknown[] = none ? [...values, null] : values;
    if (fallback) cases.push({ if: { properties: { [tag]: { enum: known } } }, else: fallback });
    unions.set(pointer, { tag, branches: map, open: fallback !== undefined });
    const tagSchema: JsonSchema = { type: none ? ['string', 'null'] : 'string' };
    if (!fallback) tagSchema.enum = known;
    const out: JsonSchema = { ...annotations, type: 'object' };
    if (!none) out.required = [tag];
    out.properties = { [tag]: tagSchema };
    out.allOf = cases;
    return out;
  }
  return undefined;
}

const FALLBACK_KEYS = new Set(['title', 'description', 'type', 'format']);

function rewriteConsts(keyword: string, branches: JsonSchema[], annotations: JsonSchema): JsonSchema | undefined {
  const type = branches[0]?.type;
  if (typeof type !== 'string' || type === 'object' || type === 'array' || type === 'null') return undefined;
  const values: unknown[] = [];
  let open = false;
  for (const b of branches) {
    if (b.type !== type) return undefined;
    if ('const' in b) {
      if (!Object.keys(b).every((k) => k === 'const' || FALLBACK_KEYS.has(k))) return undefined;
      values.push(b.const);
    } else if (Object.keys(b).every((k) => FALLBACK_KEYS.has(k))) {
      open = true;
    } else return undefined;
  }
  if (values.length === 0) return undefined;
  // In a oneOf, a value matching both a const and the open fallback would fail: not equivalent.
  if (open && keyword === 'oneOf') return undefined;
  const format = branches.find((b) => typeof b.format === 'string')?.format;
  const base: JsonSchema = { ...annotations, type };
  if (format !== undefined) base.format = format;
  return open ? base : { ...base, enum: values };
}

function isNullBranch(b: JsonSchema): boolean {
  return b.type === 'null' && Object.keys(b).every((k) => k === 'type' || k === 'title' || k === 'description');
}

function rewriteNullable(keyword: string, branches: JsonSchema[], annotations: JsonSchema): JsonSchema | undefined {
  if (keyword !== 'anyOf' || branches.length !== 2) return undefined;
  const nullAt = branches.findIndex(isNullBranch);
  if (nullAt < 0) return undefined;
  const other = branches[1 - nullAt];
  return { ...annotations, if: { type: 'null' }, else: other };
}

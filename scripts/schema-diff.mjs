// Lists the places where the official v1 and v2 schemas constrain the same definition's field
// differently: a value valid under one may be invalid under the other. The bridge's table in
// docs/bridge.md is checked against this list by packages/tools/test/proxy-bridge-schema-gaps.test.ts.
// Usage: node scripts/schema-diff.mjs [--json]
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KEYWORDS = [
  'type',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'const',
  'minItems',
  'maxItems',
];

/** The official schema of one version (the pinned @agentclientprotocol/sdk). */
export function loadSchema(version) {
  const sdk = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@agentclientprotocol', 'sdk');
  return JSON.parse(readFileSync(join(sdk, 'schema', `v${version}`, 'schema.json'), 'utf8'));
}

const defsOf = (s) => s.$defs ?? s.definitions ?? {};
const norm = (v) => (v === undefined ? undefined : JSON.stringify(Array.isArray(v) ? [...v].sort() : v));

/**
 * A field's effective keywords: `$ref` and a one-entry `allOf` are followed (v2 names many
 * types, such as AbsolutePath, that v1 writes inline), an `anyOf` contributes the union of its
 * branches' types (keywords only when one branch is not `null`).
 */
function resolved(field, defs, depth = 0) {
  if (depth > 8 || typeof field !== 'object' || field === null) return field ?? {};
  if (typeof field.$ref === 'string') return resolved(defs[field.$ref.split('/').pop()], defs, depth + 1);
  if (Array.isArray(field.allOf) && field.allOf.length === 1)
    return { ...resolved(field.allOf[0], defs, depth + 1), ...withoutKeys(field, ['allOf']) };
  const branches = field.anyOf ?? field.oneOf;
  if (Array.isArray(branches) && field.type === undefined) {
    const rs = branches.map((b) => resolved(b, defs, depth + 1));
    const types = [
      ...new Set(rs.flatMap((r) => (Array.isArray(r.type) ? r.type : r.type === undefined ? ['?'] : [r.type]))),
    ];
    const nonNull = rs.filter((r) => r.type !== 'null');
    const base = nonNull.length === 1 ? nonNull[0] : {};
    const out = { ...base, type: types.length === 1 ? types[0] : types };
    // a union of constants (a closed enum in one version, open with a plain `string` branch in
    // the other: Role, PermissionOptionKind, StringFormat...) compares as the set of its values
    if (
      nonNull.length > 1 &&
      nonNull.every((r) => r.const !== undefined || (r.type === 'string' && r.enum === undefined))
    ) {
      out.enum = nonNull.map((r) => (r.const !== undefined ? r.const : '<any string>'));
    }
    // branches that all require a minimum length (SessionConfigSelectOptions: flat or grouped)
    const mins = [...new Set(nonNull.map((r) => r.minItems))];
    if (nonNull.length > 1 && nonNull.every((r) => r.type === 'array'))
      out.minItems = mins.length === 1 ? mins[0] : undefined;
    return out;
  }
  return field;
}
const withoutKeys = (o, keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
const sameType = (a, b) => norm(Array.isArray(a) ? a : [a]) === norm(Array.isArray(b) ? b : [b]);

/** Differences of one field's own keywords between v1 and v2 (`null` for none). */
function fieldDiff(a, b) {
  const out = {};
  for (const k of KEYWORDS) {
    if (k === 'type' ? sameType(a.type, b.type) : norm(a[k]) === norm(b[k])) continue;
    out[k] = { v1: a[k], v2: b[k] };
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * Every `Definition.field` (and `Definition` for a definition's own keywords) whose constraints
 * differ between the two schemas, with `required` changes, for the definitions both schemas have.
 */
export function schemaGaps(v1 = loadSchema(1), v2 = loadSchema(2)) {
  const d1 = defsOf(v1);
  const d2 = defsOf(v2);
  const gaps = [];
  for (const name of Object.keys(d1).sort()) {
    const a = d1[name];
    const b = d2[name];
    if (!b) continue;
    const own = fieldDiff(withoutKeys(resolved(a, d1), ['type']), withoutKeys(resolved(b, d2), ['type']));
    if (own) gaps.push({ path: name, diff: own });
    const pa = a.properties ?? {};
    const pb = b.properties ?? {};
    for (const field of Object.keys(pa).sort()) {
      if (!pb[field]) continue;
      const diff = fieldDiff(resolved(pa[field], d1), resolved(pb[field], d2));
      if (diff) gaps.push({ path: `${name}.${field}`, diff });
    }
    const r1 = new Set(a.required ?? []);
    const r2 = new Set(b.required ?? []);
    for (const f of r2)
      if (!r1.has(f) && pa[f]) gaps.push({ path: `${name}.${f}`, diff: { required: { v1: false, v2: true } } });
    for (const f of r1)
      if (!r2.has(f) && pb[f]) gaps.push({ path: `${name}.${f}`, diff: { required: { v1: true, v2: false } } });
  }
  return gaps;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const gaps = schemaGaps();
  if (process.argv.includes('--json')) console.log(JSON.stringify(gaps, null, 2));
  else
    for (const g of gaps)
      console.log(
        `${g.path}: ${Object.entries(g.diff)
          .map(([k, v]) => `${k} v1=${JSON.stringify(v.v1)} v2=${JSON.stringify(v.v2)}`)
          .join('; ')}`,
      );
}

/**
 * fast-check arbitraries generated from a JSON Schema (the official ACP schemas): every value a
 * generator yields is meant to be valid under the schema it came from. Callers still check each
 * value with Ajv against that schema, so a generator bug shows up as a failure, never as a
 * silently weaker property.
 *
 * Supported: `$ref` (`#/$defs/X`), `allOf` (merged), `oneOf`/`anyOf` (one branch; `not` branches
 * of "custom or future" catch-alls are left out unless asked for), `const`/`enum`, `type` (also
 * arrays and `null`), `properties`/`required`/`additionalProperties` (extra keys rare),
 * `items`/`minItems`/`maxItems`, `minimum`/`maximum`/`exclusiveMinimum`, integer formats
 * (`int32`, `int64`, `uint16`, `uint32`, `uint64`), string formats loosely (`uri`, `date-time`),
 * `minLength`/`maxLength`, and a depth limit past which optional parts are left out.
 */
import fc from 'fast-check';

type Schema = Record<string, unknown> | boolean;
type Obj = Record<string, unknown>;

export interface SchemaArbitraryOptions {
  /** Below this depth optional properties and array items are generated; past it, only what is required. */
  maxDepth?: number;
  /** Longest array generated (past `minItems`). */
  maxItems?: number;
  /** Whether objects that allow it may get an extra key (rarely). */
  extraKeys?: boolean;
}

const INT_FORMATS: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  uint16: [0, 65535],
  // 64-bit ranges as far as a JS number is exact
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Short strings, with the odd character that breaks naive code (quotes, newline, non-ASCII). */
const shortString = (min = 0, max = 8): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: Math.max(min, max) }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('a"b', 'x\ny', 'é✓', '/tmp/a b.txt')
        .filter((s) => s.length >= min && s.length <= Math.max(min, max)),
    },
  );

function stringArbitrary(s: Obj): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? Math.min(s.maxLength, min + 12) : min + 8;
  switch (s.format) {
    case 'uri':
      return fc.constantFrom('file:///tmp/a.txt', 'https://example.invalid/x', 'urn:x:1', 'file:///tmp/%C3%A9.md');
    case 'date-time':
      return fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString());
    case 'regex':
      return fc.constantFrom('^a+$', '.*', '[0-9]{2}');
    default:
      return shortString(min, max);
  }
}

function integerArbitrary(s: Obj): fc.Arbitrary<number> {
  let [min, max] =
    typeof s.format === 'string' && INT_FORMATS[s.format] ? INT_FORMATS[s.format]! : [-(2 ** 31), 2 ** 31 - 1];
  if (typeof s.minimum === 'number') min = Math.max(min, Math.ceil(s.minimum));
  if (typeof s.exclusiveMinimum === 'number') min = Math.max(min, Math.floor(s.exclusiveMinimum) + 1);
  if (typeof s.maximum === 'number') max = Math.min(max, Math.floor(s.maximum));
  if (typeof s.exclusiveMaximum === 'number') max = Math.min(max, Math.ceil(s.exclusiveMaximum) - 1);
  // the bounds and values around 0 are where versions disagree (line 0, exit code -1): weight them
  const edges = [min, max, 0, 1, -1, 2].filter((n) => n >= min && n <= max);
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
  );
}

function numberArbitrary(s: Obj): fc.Arbitrary<number> {
  const min = typeof s.minimum === 'number' ? s.minimum : -1e6;
  const max = typeof s.maximum === 'number' ? s.maximum : 1e6;
  const edges = [min, max, 0, 0.5, 1, -1, 2].filter((n) => n >= min && n <= max);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
  );
}

/** A small JSON value (for `{}` / `true` schemas such as `rawInput`). */
const anyJson = (): fc.Arbitrary<unknown> =>
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** Generates arbitraries for the definitions of one root schema. */
export class SchemaArbitraries {
  private readonly defs: Obj;
  private readonly maxDepth: number;
  private readonly maxItems: number;
  private readonly extraKeys: boolean;

  constructor(root: Obj, options: SchemaArbitraryOptions = {}) {
    this.defs = (isObj(root.$defs) ? root.$defs : {}) as Obj;
    this.maxDepth = options.maxDepth ?? 7;
    this.maxItems = options.maxItems ?? 3;
    this.extraKeys = options.extraKeys ?? true;
  }

  /** The definition `name` (`$defs/name`). */
  def(name: string): Schema {
    const d = this.defs[name];
    if (d === undefined) throw new Error(`schema has no $defs/${name}`);
    return d as Schema;
  }

  /** An arbitrary for `$defs/name`. */
  forDef(name: string): fc.Arbitrary<unknown> {
    return this.of(this.def(name), 0);
  }

  /**
   * The branches of a union definition (`oneOf`/`anyOf`), each with the value of its
   * discriminating `const` property (`sessionUpdate`, `type`, ...). Catch-all branches (`not`)
   * are left out.
   */
  unionBranches(name: string, tag: string): Array<{ tag: string; arbitrary: fc.Arbitrary<unknown> }> {
    const d = this.deref(this.def(name));
    const branches = (isObj(d) &&
      (Array.isArray(d.oneOf) ? d.oneOf : Array.isArray(d.anyOf) ? d.anyOf : [])) as Schema[];
    const out: Array<{ tag: string; arbitrary: fc.Arbitrary<unknown> }> = [];
    for (const b of branches) {
      const m = this.merged(b);
      const p = isObj(m.properties) ? (m.properties as Obj)[tag] : undefined;
      if (m.not !== undefined || !isObj(p) || typeof p.const !== 'string') continue;
      out.push({ tag: p.const, arbitrary: this.of(b, 1) });
    }
    return out;
  }

  private deref(s: Schema): Schema {
    let cur = s;
    for (let i = 0; i < 16 && isObj(cur) && typeof cur.$ref === 'string'; i++) {
      const ref: string = cur.$ref;
      if (!ref.startsWith('#/$defs/')) throw new Error(`unsupported $ref ${ref}`);
      const { $ref: _r, ...rest } = cur;
      const target = this.def(ref.slice('#/$defs/'.length));
      cur =
        Object.keys(rest).filter((k) => k !== 'description').length > 0 && isObj(target)
          ? this.mergeTwo(target, rest)
          : target;
    }
    return cur;
  }

  /** A schema with its `$ref`s and `allOf` entries merged into one object schema. */
  private merged(s: Schema): Obj {
    const d = this.deref(s);
    if (!isObj(d)) return d ? {} : { not: {} };
    if (!Array.isArray(d.allOf)) return d;
    const { allOf, ...rest } = d;
    let out: Obj = rest;
    for (const part of allOf as Schema[]) out = this.mergeTwo(out, this.merged(part));
    return out;
  }

  private mergeTwo(a: Obj, b: Obj): Obj {
    const out: Obj = { ...a, ...b };
    if (isObj(a.properties) || isObj(b.properties))
      out.properties = { ...(a.properties as Obj), ...(b.properties as Obj) };
    if (Array.isArray(a.required) || Array.isArray(b.required))
      out.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
    if (a.type !== undefined && b.type === undefined) out.type = a.type;
    return out;
  }

  private of(s: Schema, depth: number): fc.Arbitrary<unknown> {
    if (s === true) return anyJson();
    if (s === false) throw new Error('cannot generate a value for the schema `false`');
    const m = this.merged(s);
    if ('const' in m) return fc.constant(m.const);
    if (Array.isArray(m.enum)) return fc.constantFrom(...(m.enum as unknown[]));
    const union = (Array.isArray(m.oneOf) ? m.oneOf : Array.isArray(m.anyOf) ? m.anyOf : undefined) as
      Schema[] | undefined;
    if (union) {
      const { oneOf: _o, anyOf: _a, ...siblings } = m;
      const hasSiblings = Object.keys(siblings).some(
        (k) => k !== 'description' && k !== 'discriminator' && k !== 'title',
      );
      const branches = union
        .filter((b) => !(isObj(b) && b.not !== undefined))
        .map((b) => this.of(hasSiblings && isObj(b) ? this.mergeTwo(siblings, this.merged(b)) : b, depth + 1));
      if (branches.length === 0) throw new Error('a union with only catch-all branches');
      return fc.oneof(...branches);
    }
    const type = m.type;
    if (Array.isArray(type)) return fc.oneof(...type.map((t) => this.of({ ...m, type: t }, depth)));
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'string':
        return stringArbitrary(m);
      case 'integer':
        return integerArbitrary(m);
      case 'number':
        return numberArbitrary(m);
      case 'array':
        return this.array(m, depth);
      case 'object':
        return this.object(m, depth);
      default:
        return isObj(m.properties) ? this.object(m, depth) : anyJson();
    }
  }

  private array(m: Obj, depth: number): fc.Arbitrary<unknown[]> {
    const minLength = typeof m.minItems === 'number' ? m.minItems : 0;
    const cap = typeof m.maxItems === 'number' ? m.maxItems : Infinity;
    const maxLength = depth >= this.maxDepth ? minLength : Math.min(cap, minLength + this.maxItems);
    if (maxLength === 0) return fc.constant([]);
    const items = m.items === undefined ? anyJson() : this.of(m.items as Schema, depth + 1);
    return fc.array(items, { minLength, maxLength });
  }

  private object(m: Obj, depth: number): fc.Arbitrary<Obj> {
    const props = (isObj(m.properties) ? m.properties : {}) as Record<string, Schema>;
    const required = new Set(Array.isArray(m.required) ? (m.required as string[]) : []);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, p] of Object.entries(props)) {
      if (!required.has(k) && depth >= this.maxDepth) continue;
      model[k] = this.of(p, depth + 1);
    }
    const base = fc.record(model, { requiredKeys: Object.keys(model).filter((k) => required.has(k)) });
    const extra = m.additionalProperties;
    if (!this.extraKeys || extra === false || depth >= this.maxDepth) return base as fc.Arbitrary<Obj>;
    const extraValue = isObj(extra) ? this.of(extra, depth + 1) : anyJson();
    // an unknown key now and then: receivers must keep or ignore what they do not know
    const key = fc.constantFrom('x_extra', 'futureField', 'zz');
    return fc
      .tuple(base, fc.option(fc.tuple(key, extraValue), { freq: 8 }))
      .map(([o, kv]) => (kv && !(kv[0] in props) ? { ...o, [kv[0]]: kv[1] } : o)) as fc.Arbitrary<Obj>;
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { joinPath, pickFailure } from './failure.js';
import {
  defsOf,
  isSchemaObject,
  loadSchema,
  methodTable,
  type JsonSchema,
  type MethodDefs,
  type SchemaFlavor,
} from './schema-source.js';
import { transformSchema } from './transform.js';
import type { MethodKind, Side, ValidationFailure, WireValidator } from './types.js';

const validators = new Map<1 | 2, SchemaValidator>();
const unstableValidators = new Map<1 | 2, SchemaValidator>();

/**
 * The validator for a protocol version. Creating it costs nothing: the schema is parsed on the
 * first check, Ajv is loaded and given the schema's `$defs` on the first check that needs it, and
 * each `$defs` entry is compiled on first use and cached, so an agent or client that never checks
 * a message never pays for validation, and steady-state checks cost only the compiled function.
 */
export function getValidator(version: 1 | 2): WireValidator {
  let v = validators.get(version);
  if (!v) {
    if (version !== 1 && version !== 2) throw new RangeError(`no ACP schema for protocol version ${String(version)}`);
    v = new SchemaValidator(version, 'stable');
    validators.set(version, v);
  }
  return v;
}

/**
 * The checks of the methods only `schema.unstable.json` has (`session/fork`, `session/archive`,
 * `session/status`, `session/set_title`, ...): the stable validator falls back to it for a method
 * its own schema lacks, so an unstable method is checked against its published shape instead of
 * passing unchecked (or reading as unknown). Its method table holds only those extra methods.
 * @internal For the stable validator and `scripts/precompile-validators.mjs`.
 */
function getStableSchemaValidator(version: 1 | 2): SchemaValidator {
  const v = getValidator(version);
  if (!(v instanceof SchemaValidator)) throw new Error('the stable validator is a SchemaValidator');
  return v;
}

export function getUnstableValidator(version: 1 | 2): SchemaValidator {
  let v = unstableValidators.get(version);
  if (!v) {
    v = new SchemaValidator(version, 'unstable');
    unstableValidators.set(version, v);
  }
  return v;
}

/** The file name prefix of a version's (and flavor's) precompiled validators. */
function precompiledPrefix(version: 1 | 2, flavor: SchemaFlavor): string {
  return flavor === 'stable' ? `v${version}` : `v${version}-unstable`;
}

const requireHere = createRequire(import.meta.url);

/** Ajv, loaded on the first check that needs it (it is CommonJS, so `require` keeps that synchronous). */
let AjvClass: typeof Ajv2020 | undefined;
function ajvClass(): typeof Ajv2020 {
  if (AjvClass) return AjvClass;
  try {
    return (AjvClass = (requireHere('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020);
  } catch (e) {
    // ajv is an optional peer of @acp-kit/protocol: the build precompiles every method's params and
    // result and every session update, so only def() of another def compiles at run time
    if (!(e instanceof Error) || !('code' in e) || e.code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(
      'this check compiles a schema def at run time, which needs the ajv package: npm install ajv@8 (method params, results and session updates are precompiled and need no Ajv)',
      { cause: e },
    );
  }
}

/**
 * Where `npm run build` writes precompiled validators (`scripts/precompile-validators.mjs`): Ajv
 * standalone code, one CommonJS module per method params/result def and per update branch,
 * generated from the same transformed schema with the same options, so checks are exactly as
 * strict. Loading one costs about a millisecond instead of loading Ajv and compiling (hundreds of
 * ms at start-up). Absent when running from `src` (tests): then Ajv compiles as before.
 */
const PRECOMPILED_DIR = fileURLToPath(new URL('./precompiled/', import.meta.url));

/** The file of a precompiled validator (`key` relative to the version's base, e.g. `InitializeRequest`). */
function precompiledFile(prefix: string, key: string): string {
  return `${prefix}-${encodeURIComponent(key)}.cjs`;
}

/** The schema's method table, def names and update kinds: from the precompiled index, else parsed from the schema. */
interface SchemaIndex {
  methods: Map<string, MethodDefs>;
  defNames: Set<string>;
  /** `sessionUpdate` values with a precompiled branch validator; undefined when not precompiled. */
  updateTags?: Set<string>;
}

/** The JSON form of {@link SchemaIndex} that `scripts/precompile-validators.mjs` writes next to the validators. */
export interface PrecompiledIndex {
  methods: Array<[string, MethodDefs]>;
  defNames: string[];
  updateTags: string[];
}

/** The Ajv instance with every def registered (not compiled). */
interface Engine {
  ajv: Ajv2020;
  /** `sessionUpdate` value -> Ajv key of its branch (registered alone). */
  updateBranches: Map<string, string>;
}

export class SchemaValidator implements WireValidator {
  readonly version: 1 | 2;
  readonly flavor: SchemaFlavor;
  private readonly prefix: string;
  /** Each `$defs` entry is its own Ajv schema `${base}/Name`, so compiling one def only compiles what it reaches. */
  private readonly base: string;
  private index?: SchemaIndex;
  private engineState?: Engine;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly updateFns = new Map<string, ValidateFunction>();

  constructor(version: 1 | 2, flavor: SchemaFlavor) {
    this.version = version;
    this.flavor = flavor;
    this.prefix = precompiledPrefix(version, flavor);
    this.base = `https://acp-kit.invalid/schema/${this.prefix}`;
  }

  private get schema(): SchemaIndex {
    if (!this.index) {
      const file = `${PRECOMPILED_DIR}${this.prefix}-index.json`;
      if (existsSync(file)) {
        const pre = JSON.parse(readFileSync(file, 'utf8')) as PrecompiledIndex;
        this.index = {
          methods: new Map(pre.methods),
          defNames: new Set(pre.defNames),
          updateTags: new Set(pre.updateTags),
        };
      } else {
        const raw = loadSchema(this.version, this.flavor);
        this.index = { methods: this.ownMethods(methodTable(raw)), defNames: new Set(Object.keys(defsOf(raw))) };
      }
    }
    return this.index;
  }

  /** The unstable flavor keeps only the methods the stable schema lacks (the ones it is a fallback for). */
  private ownMethods(all: Map<string, MethodDefs>): Map<string, MethodDefs> {
    if (this.flavor === 'stable') return all;
    const stable = getValidator(this.version);
    return new Map([...all].filter(([method]) => !stable.knows(method)));
  }

  /** The update kinds this schema checks: for the unstable flavor, only the ones the stable schema lacks. */
  private ownUpdateBranches(): Map<string, string> {
    const all = this.engine.updateBranches;
    if (this.flavor === 'stable') return all;
    const stable = getStableSchemaValidator(this.version);
    return new Map([...all].filter(([tag]) => !stable.knowsUpdate(tag)));
  }

  /** Whether this schema has the `sessionUpdate` kind `tag`. */
  knowsUpdate(tag: string): boolean {
    const tags = this.schema.updateTags;
    return tags ? tags.has(tag) : this.engine.updateBranches.has(tag);
  }

  /** @internal For `scripts/precompile-validators.mjs`. */
  precompileIndex(): PrecompiledIndex {
    return {
      methods: [...this.methods],
      defNames: [...this.defNames],
      updateTags: [...this.ownUpdateBranches().keys()],
    };
  }

  private get methods(): Map<string, MethodDefs> {
    return this.schema.methods;
  }

  private get defNames(): Set<string> {
    return this.schema.defNames;
  }

  /** @internal For `scripts/precompile-validators.mjs`: the keys worth precompiling. */
  precompileKeys(): string[] {
    const keys = new Set<string>();
    for (const m of this.methods.values()) {
      if (m.params) keys.add(this.key(m.params));
      if (m.result) keys.add(this.key(m.result));
      if (m.notification) keys.add(this.key(m.notification.params));
    }
    for (const key of this.ownUpdateBranches().values()) keys.add(key);
    return [...keys];
  }

  /** @internal For `scripts/precompile-validators.mjs`: the Ajv instance and the file name of a key. */
  precompileTarget(key: string): { ajv: Ajv2020; file: string } {
    return { ajv: this.engine.ajv, file: precompiledFile(this.prefix, key.slice(this.base.length + 1)) };
  }

  private get engine(): Engine {
    if (this.engineState) return this.engineState;
    const { schema, unions } = transformSchema(loadSchema(this.version, this.flavor));
    // Lenient on input: formats (int64, uri, ...) are not checked; unknown keywords (x-*) ignored.
    // The official schema is trusted: checking it against the meta-schema would triple start-up.
    const Ajv = ajvClass();
    // `code.source` keeps the generated code for the build-time precompile step (same checks).
    const ajv = new Ajv({
      strict: false,
      validateFormats: false,
      allErrors: false,
      validateSchema: false,
      code: { source: true },
    });
    // Compiling a pointer into the whole document makes Ajv compile the entire document first
    // (~0.5 s); one schema per def keeps the first check of a method to a few ms.
    const split = relocateObject(schema, this.base);
    for (const [name, def] of Object.entries(defsOf(split))) ajv.addSchema(def, this.key(name));
    const su = unions.get('#/$defs/SessionUpdate');
    if (!su) throw new Error(`ACP v${this.version} schema: SessionUpdate is not a tagged union on sessionUpdate`);
    const updateBranches = new Map<string, string>();
    for (const [tag, pointer] of su.branches) {
      const key = this.updateKey(tag);
      ajv.addSchema(resolvePointer(split, pointer), key);
      updateBranches.set(tag, key);
    }
    return (this.engineState = { ajv, updateBranches });
  }

  private updateKey(tag: string): string {
    return `${this.key('SessionUpdate')}/${encodeURIComponent(tag)}`;
  }

  private key(defName: string): string {
    return `${this.base}/${encodeURIComponent(defName)}`;
  }

  private compile(key: string): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.precompiled(key) ?? this.engine.ajv.getSchema(key);
      if (!fn) throw new Error(`ACP v${this.version} schema: cannot compile ${key}`);
      this.compiled.set(key, fn);
    }
    return fn;
  }

  private precompiled(key: string): ValidateFunction | undefined {
    const path = PRECOMPILED_DIR + precompiledFile(this.prefix, key.slice(this.base.length + 1));
    if (!existsSync(path)) return undefined;
    return requireHere(path) as ValidateFunction;
  }

  private run(fn: ValidateFunction, value: unknown, at: string): ValidationFailure | null {
    if (fn(value)) return null;
    return pickFailure(fn.errors ?? [], at);
  }

  /** The unstable schema's checks for a method this (stable) schema lacks, or undefined. */
  private fallback(method: string): SchemaValidator | undefined {
    if (this.flavor !== 'stable' || this.methods.has(method)) return undefined;
    const u = getUnstableValidator(this.version);
    return u.knows(method) ? u : undefined;
  }

  params(method: string, value: unknown, at = '', kind?: MethodKind): ValidationFailure | null {
    const u = this.fallback(method);
    if (u) return u.params(method, value, at, kind);
    const m = this.methods.get(method);
    const def = kind === 'notification' && m?.notification ? m.notification.params : m?.params;
    if (!def) return null;
    if (this.flavor === 'stable' && hasAcpServer(value)) return this.paramsWithAcpServers(def, value, at);
    return this.run(this.compile(this.key(def)), value, at);
  }

  /**
   * Params whose `mcpServers` hold an entry of the unstable `acp` transport (MCP-over-ACP RFD):
   * that branch of `McpServer` is only in schema.unstable.json (v1's stable union has no room for
   * it), so, as for an update kind only the unstable schema has, such an entry is checked against
   * the unstable `McpServer` and the rest of the params against this schema.
   */
  private paramsWithAcpServers(def: string, value: { mcpServers: unknown[] }, at: string): ValidationFailure | null {
    const rest = this.run(this.compile(this.key(def)), { ...value, mcpServers: [] }, at);
    if (rest) return rest;
    const unstable = getUnstableValidator(this.version);
    for (const [i, s] of value.mcpServers.entries()) {
      const f = (isAcpServer(s) ? unstable : this).def('McpServer', s, joinPath(joinPath(at, 'mcpServers'), i));
      if (f) return f;
    }
    return null;
  }

  result(method: string, value: unknown, at = ''): ValidationFailure | null {
    const u = this.fallback(method);
    if (u) return u.result(method, value, at);
    const m = this.methods.get(method);
    if (!m || !m.result) return null;
    return this.run(this.compile(this.key(m.result)), value, at);
  }

  update(value: unknown, at = ''): ValidationFailure | null | 'unknown' {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { path: at, message: 'must be object' };
    }
    const tag = 'sessionUpdate' in value ? value.sessionUpdate : undefined;
    if (typeof tag !== 'string') {
      return tag === undefined
        ? { path: at, message: "must have required property 'sessionUpdate'" }
        : { path: joinPath(at, 'sessionUpdate'), message: 'must be string' };
    }
    let fn = this.updateFns.get(tag);
    if (!fn) {
      const tags = this.schema.updateTags;
      const key = tags ? (tags.has(tag) ? this.updateKey(tag) : undefined) : this.engine.updateBranches.get(tag);
      if (!key) {
        // a kind only schema.unstable.json has (subagent_update, session_message, ...): its shape there
        const u = this.flavor === 'stable' ? getUnstableValidator(this.version) : undefined;
        return u?.knowsUpdate(tag) ? u.update(value, at) : 'unknown';
      }
      fn = this.compile(key);
      this.updateFns.set(tag, fn);
    }
    return this.run(fn, value, at);
  }

  def(name: string, value: unknown, at = ''): ValidationFailure | null {
    if (!this.defNames.has(name)) throw new Error(`ACP v${this.version} schema has no $defs/${name}`);
    return this.run(this.compile(this.key(name)), value, at);
  }

  knows(method: string): boolean {
    return this.methods.has(method);
  }

  sideOf(method: string, kind?: MethodKind): Side | 'protocol' | undefined {
    const m = this.methods.get(method);
    if (!m) return this.fallback(method)?.sideOf(method, kind);
    return kind === 'notification' && m.notification ? m.notification.side : m.side;
  }
}

function isAcpServer(s: unknown): boolean {
  return isSchemaObject(s) && s.type === 'acp';
}

/** Params with a `mcpServers` list that holds an `acp` transport entry. */
function hasAcpServer(value: unknown): value is { mcpServers: unknown[] } {
  return isSchemaObject(value) && Array.isArray(value.mcpServers) && value.mcpServers.some(isAcpServer);
}

/** Deep copy with every `#/$defs/Name` reference made absolute (`${base}/Name`). */
function relocateRefs(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((n) => relocateRefs(n, base));
  if (typeof node !== 'object' || node === null) return node;
  return relocateObject(node, base);
}

function relocateObject(node: object, base: string): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') && !v.slice(8).includes('/')) {
      out[k] = `${base}/${encodeURIComponent(decodeURIComponent(v.slice(8)))}`;
    } else out[k] = relocateRefs(v, base);
  }
  return out;
}

function resolvePointer(doc: JsonSchema, pointer: string): JsonSchema {
  let node: unknown = doc;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(key)] : isSchemaObject(node) ? node[key] : undefined;
  }
  // pointers come from transformSchema over this very document
  if (!isSchemaObject(node)) throw new Error(`schema pointer ${pointer} does not name a schema object`);
  return node;
}

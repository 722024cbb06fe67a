import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A JSON Schema document or sub-schema, as parsed JSON. */
export type JsonSchema = { [key: string]: unknown };

/** Which schema file of a version: `stable` (`schema.json`) or `unstable` (`schema.unstable.json`). */
export type SchemaFlavor = 'stable' | 'unstable';

const cache = new Map<string, JsonSchema>();

/**
 * Candidate locations, relative to this module. `src/validation/` (vitest) and `dist/validation/`
 * (built) are both two levels below the @acp-kit/protocol package root, where `npm run build`
 * copies the schemas (`scripts/copy-schemas.mjs`). The SDK copy at the workspace root is a
 * fallback for a checkout that has not been built yet.
 */
function candidates(version: 1 | 2, flavor: SchemaFlavor): URL[] {
  const file = flavor === 'stable' ? 'schema.json' : 'schema.unstable.json';
  return [
    new URL(`../../schema/v${version}/${file}`, import.meta.url),
    new URL(`../../../../node_modules/@agentclientprotocol/sdk/schema/v${version}/${file}`, import.meta.url),
  ];
}

/** The file the schema of `version` is read from (the first candidate that exists). */
export function schemaLocation(version: 1 | 2, flavor: SchemaFlavor = 'stable'): string {
  const urls = candidates(version, flavor);
  for (const url of urls) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(
    `ACP v${version} ${flavor} schema not found (looked in ${urls.map((u) => fileURLToPath(u)).join(', ')}); run \`npm run build\``,
  );
}

/**
 * The official ACP JSON schema of a protocol version, parsed once and cached.
 * Callers must not mutate the returned object.
 */
export function loadSchema(version: 1 | 2, flavor: SchemaFlavor = 'stable'): JsonSchema {
  const key = `${version}:${flavor}`;
  let schema = cache.get(key);
  if (!schema) {
    const parsed: unknown = JSON.parse(readFileSync(schemaLocation(version, flavor), 'utf8'));
    if (!isSchemaObject(parsed)) throw new Error(`ACP v${version} ${flavor} schema is not a JSON object`);
    schema = parsed;
    cache.set(key, schema);
  }
  return schema;
}

/** The `$defs` of a schema document. */
export function defsOf(schema: JsonSchema): Record<string, JsonSchema> {
  const defs = schema.$defs;
  const out: Record<string, JsonSchema> = {};
  if (!isSchemaObject(defs)) return out;
  for (const [name, def] of Object.entries(defs)) {
    // the official schemas use object schemas only; a boolean one would need its own handling
    if (!isSchemaObject(def)) throw new Error(`schema $defs/${name} is not an object schema`);
    out[name] = def;
  }
  return out;
}

/** A JSON object (a schema or a keyword's object value), not an array or `null`. */
export function isSchemaObject(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Where a method's params and result are defined, from the schema's `x-method` / `x-side` annotations. */
export interface MethodDefs {
  /**
   * `x-side`: `agent` = handled by the agent (sent by the client); `protocol` = either side. The
   * proxy-chain methods (`x-side: proxy`, between a conductor and its proxy components, where
   * `proxy/successor` goes both ways) are `protocol`: neither the client nor the agent role.
   */
  side: 'agent' | 'client' | 'protocol';
  kind: 'request' | 'notification';
  /** `$defs` name of the params (`*Request` or `*Notification`). */
  params: string;
  /** `$defs` name of the result (`*Response`); requests only. */
  result?: string;
  /**
   * A method that is a request AND a notification (unstable `mcp/message`: the request goes to the
   * client, its notifications to the agent; `proxy/successor`): the notification's own side and
   * params. The fields above are then the request's.
   */
  notification?: { side: 'agent' | 'client' | 'protocol'; params: string };
}

/** The `x-side` of a def as a {@link MethodDefs} side, or undefined when it is not a method side. */
function sideOf(def: JsonSchema): MethodDefs['side'] | undefined {
  const side = def['x-side'];
  if (side === 'proxy') return 'protocol';
  return side === 'agent' || side === 'client' || side === 'protocol' ? side : undefined;
}

/** Method name -> defs, built from the `x-method` annotated `$defs` of a schema document. */
export function methodTable(schema: JsonSchema): Map<string, MethodDefs> {
  const table = new Map<string, MethodDefs>();
  const notes = new Map<string, { side: MethodDefs['side']; params: string }>();
  const entry = (method: string, side: MethodDefs['side']): MethodDefs => {
    let e = table.get(method);
    if (!e) {
      e = { side, kind: 'request', params: '' };
      table.set(method, e);
    }
    return e;
  };
  for (const [name, def] of Object.entries(defsOf(schema))) {
    const method = def['x-method'];
    const side = sideOf(def);
    if (typeof method !== 'string' || side === undefined) continue;
    if (name.endsWith('Request')) {
      const e = entry(method, side);
      e.side = side;
      e.params = name;
    } else if (name.endsWith('Notification')) notes.set(method, { side, params: name });
    else if (name.endsWith('Response')) entry(method, side).result = name;
  }
  for (const [method, note] of notes) {
    const e = table.get(method);
    if (e) e.notification = note;
    else table.set(method, { side: note.side, kind: 'notification', params: note.params });
  }
  return table;
}

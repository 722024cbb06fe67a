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
  /** `x-side`: `agent` = handled by the agent (sent by the client); `protocol` = either side. */
  side: 'agent' | 'client' | 'protocol';
  kind: 'request' | 'notification';
  /** `$defs` name of the params (`*Request` or `*Notification`). */
  params: string;
  /** `$defs` name of the result (`*Response`); requests only. */
  result?: string;
}

/** Method name -> defs, built from the `x-method` annotated `$defs` of a schema document. */
export function methodTable(schema: JsonSchema): Map<string, MethodDefs> {
  const table = new Map<string, MethodDefs>();
  const entry = (method: string, side: MethodDefs['side']): MethodDefs => {
    let e = table.get(method);
    if (!e) {
      e = { side, kind: 'notification', params: '' };
      table.set(method, e);
    }
    return e;
  };
  for (const [name, def] of Object.entries(defsOf(schema))) {
    const method = def['x-method'];
    const side = def['x-side'];
    if (typeof method !== 'string' || (side !== 'agent' && side !== 'client' && side !== 'protocol')) continue;
    if (name.endsWith('Request')) {
      const e = entry(method, side);
      e.kind = 'request';
      e.params = name;
    } else if (name.endsWith('Notification')) {
      entry(method, side).params = name;
    } else if (name.endsWith('Response')) {
      const e = entry(method, side);
      e.kind = 'request';
      e.result = name;
    }
  }
  return table;
}

/**
 * JSON files the CLI reads from users (session exports, the config file) are checked against a
 * JSON Schema with Ajv, and the first problem is reported with the path of the bad field
 * (`profiles.work.agent.args[0]: must be string`). Ajv is loaded only when such a file is read:
 * `run` without a config file loads nothing but commander (test/startup-cli-commands.test.ts).
 */
import type { ErrorObject } from 'ajv';

/** A JSON Schema (draft-07 subset, as Ajv takes it). */
export type JsonSchema = Record<string, unknown>;

/** `/profiles/work/agent/args/0` → `profiles.work.agent.args[0]` (the way people write paths into JSON). */
export function readablePath(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const p of parts) {
    if (/^\d+$/.test(p)) out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(p)) out += out === '' ? p : `.${p}`;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

/** One Ajv error as a sentence naming the field. */
function describeError(e: ErrorObject): string {
  const at = readablePath(e.instancePath);
  const params: Record<string, unknown> = e.params;
  if (e.keyword === 'required' && typeof params.missingProperty === 'string') {
    const field = at === '' ? params.missingProperty : `${at}.${params.missingProperty}`;
    return `${field}: is required`;
  }
  if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    const field = at === '' ? params.additionalProperty : `${at}.${params.additionalProperty}`;
    return `${field}: is not a known field`;
  }
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues))
    return `${at || '(top level)'}: must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return `${at || '(top level)'}: ${e.message ?? 'is not valid'}`;
}

/**
 * Checks `value` against `schema`: the value, typed, or the problems (the first few, each naming
 * its field). The caller states the type the schema describes.
 */
export async function checkJson<T>(schema: JsonSchema, value: unknown): Promise<{ value: T } | { problems: string[] }> {
  // `default` is ajv's module.exports, in Node's ESM view of the CommonJS package and in the CLI
  // bundle alike (which carries its own ajv, scripts/bundle.mjs, and has no named exports for it)
  const { Ajv } = (await import('ajv')).default;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile<T>(schema);
  if (validate(value)) return { value };
  const seen = new Set<string>();
  // an `if` error only says which branch failed; that branch's own error is listed beside it
  for (const e of validate.errors ?? []) if (e.keyword !== 'if') seen.add(describeError(e));
  return { problems: [...seen].slice(0, 5) };
}

import { isObj } from '@acp-kit/protocol/internal';

/** What replaces a secret on export. */
const REDACTED = '[redacted]';

/** `_meta` keys that look like credentials. */
const SECRET_KEY = /(token|secret|password|passwd|auth|api[-_]?key|credential|cookie|session[-_]?key|bearer)/i;
/** HTTP header names whose values are credentials. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)$/i;

/**
 * A copy of a JSON-RPC message with secrets replaced by `"[redacted]"`: `_meta` entries whose key
 * looks like a token or auth value (at any depth), the `env` values of MCP servers and auth methods
 * (`env` arrays of `{name, value}` and `env` objects), and `headers` values named
 * authorization / cookie / x-api-key. Everything else is kept, so a redacted capture still replays.
 */
export function redactMessage(value: unknown): unknown {
  return walk(value, false);
}

/** {@link redactMessage} on a raw line; lines that are not JSON are returned unchanged. */
export function redactRaw(raw: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  const red = redactMessage(parsed);
  return JSON.stringify(red) === JSON.stringify(parsed) ? raw : JSON.stringify(red);
}

function walk(v: unknown, inMeta: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => walk(x, inMeta));
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (inMeta && SECRET_KEY.test(k) && x !== null && typeof x !== 'object') out[k] = REDACTED;
    else if (k === 'env') out[k] = redactEnv(x);
    else if (k === 'headers') out[k] = redactHeaders(x);
    else out[k] = walk(x, inMeta || k === '_meta');
  }
  return out;
}

/** Environment values are secrets as a rule (API keys): every value goes, names stay. */
function redactEnv(env: unknown): unknown {
  if (Array.isArray(env)) return env.map((e: unknown) => (isObj(e) && 'value' in e ? { ...e, value: REDACTED } : e));
  if (env && typeof env === 'object') return Object.fromEntries(Object.keys(env).map((k) => [k, REDACTED]));
  return env;
}

function redactHeaders(headers: unknown): unknown {
  if (Array.isArray(headers)) {
    return headers.map((h: unknown) =>
      isObj(h) && SECRET_HEADER.test(String(h.name)) ? { ...h, value: REDACTED } : walk(h, false),
    );
  }
  if (headers && typeof headers === 'object') {
    return Object.fromEntries(Object.entries(headers).map(([k, x]) => [k, SECRET_HEADER.test(k) ? REDACTED : x]));
  }
  return headers;
}

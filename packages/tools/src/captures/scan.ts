import type { DecodedFrame } from './capture.js';
import type { FrameId } from './frame.js';

const CANONICAL_PREFIX = '{"jsonrpc":"2.0",';
const CLOSE_BRACE = 125;
const COMMA = 44;
const QUOTE = 34;
const BACKSLASH = 92;
/** Keys that could change what the decode finds when they come later, or a `\u` escape that could spell one. */
const LATER_ID_OR_METHOD = /"id"|"method"|\\u/g;
const LATER_ID_METHOD_OR_ERROR = /"id"|"method"|"error"|\\u/g;

/**
 * A light scan of the common shapes (`{"jsonrpc":"2.0",` then `"id":…` and/or `"method":"…"`, or
 * `"result"` / `"error"`, as acp-kit and the official SDKs write them, and `"id"` last after `"params"`
 * or `"result"`, as Zed, goose and codex write them) that finds kind, method and id without building
 * the message. It answers only when that is what `JSON.parse` would give for a valid line (a key the
 * decode looks at, `id`, `method`, `result` or `error`, that could come later or repeat makes it look
 * at the rest of the line first); it returns `undefined` for any other shape (other key order, escapes
 * in the method or id, spaces): call `decodeFrame` then. Like the recorder, it does not check that the
 * line is JSON: readers that need the message parse `raw` (a line that only looks like JSON-RPC fails there).
 */
export function scanFrame(raw: string): DecodedFrame | undefined {
  if (!raw.startsWith(CANONICAL_PREFIX) || raw.charCodeAt(raw.length - 1) !== CLOSE_BRACE) return undefined;
  let i = CANONICAL_PREFIX.length;
  let id: FrameId | undefined;
  let hasId = false;
  if (raw.startsWith('"id":', i)) {
    const v = scanId(raw, i + 5);
    if (!v || raw.charCodeAt(v.end) !== COMMA) return undefined;
    id = v.id;
    hasId = true;
    i = v.end + 1;
  }
  if (raw.startsWith('"method":"', i)) {
    const start = i + 10;
    const end = raw.indexOf('"', start);
    if (end === -1) return undefined;
    const method = raw.slice(start, end);
    if (method.includes('\\')) return undefined;
    const tail = scanTail(raw, end + 1, LATER_ID_OR_METHOD, !hasId);
    if (tail === undefined) return undefined;
    if (tail.id !== undefined) return { kind: 'request', method, id: tail.id.value };
    return hasId ? { kind: 'request', method, id } : { kind: 'notification', method };
  }
  for (const [key, kind] of [
    ['"result":', 'response'],
    ['"error":', 'error'],
  ] as const) {
    if (!raw.startsWith(key, i)) continue;
    // `error` wins over `result` in the decode, a `method` over both, the last `id` over the first;
    // without an id before, `{"jsonrpc":"2.0","result":…,"id":…}` needs the id as the last key
    const tail = scanTail(
      raw,
      i,
      kind === 'response' ? LATER_ID_METHOD_OR_ERROR : LATER_ID_OR_METHOD,
      !hasId,
      key.length,
    );
    if (tail === undefined) return undefined;
    if (hasId) return { kind, id };
    return tail.id === undefined ? undefined : { kind, id: tail.id.value };
  }
  return undefined;
}

/**
 * Checks what follows the keys already read, from `at` (a `,` or the closing `}`): fine when none of
 * `keys` (nor a `\u` escape, which could spell one) occurs in the rest of the line. Otherwise the rest
 * must be exactly `,"<key>":<value>` (when `valueAt` is given: the value of the key at `at`), then, if
 * `trailingId`, optionally `,"id":<id>`, then `}`.
 */
function scanTail(
  raw: string,
  at: number,
  keys: RegExp,
  trailingId: boolean,
  valueAt?: number,
): { id?: { value: FrameId } } | undefined {
  if (valueAt === undefined && raw.charCodeAt(at) === CLOSE_BRACE) return at === raw.length - 1 ? {} : undefined;
  // one native pass over the rest of the line, the common case (a session/update) ends here
  keys.lastIndex = at;
  if (!keys.test(raw)) return {};
  let i = at;
  if (valueAt !== undefined) i = skipValue(raw, at + valueAt);
  else {
    // `,"params":<value>` is the only key besides jsonrpc, id and method a request or notification has
    if (!raw.startsWith(',"params":', i)) return undefined;
    i = skipValue(raw, i + 10);
  }
  if (i === -1) return undefined;
  if (raw.charCodeAt(i) === CLOSE_BRACE) return i === raw.length - 1 ? {} : undefined;
  if (!trailingId || !raw.startsWith(',"id":', i)) return undefined;
  const v = scanId(raw, i + 6);
  if (!v || v.end !== raw.length - 1) return undefined;
  return { id: { value: v.id } };
}

/** A JSON-RPC id at `i` (a string without escapes, an integer or null) and the index after it. */
function scanId(raw: string, i: number): { id: FrameId; end: number } | undefined {
  if (raw.charCodeAt(i) === QUOTE) {
    const end = raw.indexOf('"', i + 1);
    if (end === -1) return undefined;
    const text = raw.slice(i + 1, end);
    return text.includes('\\') ? undefined : { id: text, end: end + 1 };
  }
  let end = i;
  while (end < raw.length && raw.charCodeAt(end) !== COMMA && raw.charCodeAt(end) !== CLOSE_BRACE) end++;
  const text = raw.slice(i, end);
  if (text === 'null') return { id: null, end };
  return /^-?\d+$/.test(text) ? { id: Number(text), end } : undefined;
}

/**
 * The index just after the JSON value starting at `i` (strings and nesting followed exactly, the rest
 * not checked), or -1 when no value starts there (whitespace included: then the full decode decides).
 */
function skipValue(raw: string, i: number): number {
  const c = raw.charCodeAt(i);
  if (c === QUOTE) return skipString(raw, i);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    for (let j = i; j < raw.length; j++) {
      const d = raw.charCodeAt(j);
      if (d === QUOTE) {
        const e = skipString(raw, j);
        if (e === -1) return -1;
        j = e - 1;
      } else if (d === 123 || d === 91) depth++;
      else if (d === CLOSE_BRACE || d === 93 /* ] */) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < raw.length && /[-+.\w]/.test(raw.charAt(j))) j++;
  return j === i ? -1 : j;
}

/** The index just after the string starting at `i`, or -1 when it does not end. */
function skipString(raw: string, i: number): number {
  for (let j = i + 1; j < raw.length; j++) {
    const d = raw.charCodeAt(j);
    if (d === BACKSLASH) j++;
    else if (d === QUOTE) return j + 1;
  }
  return -1;
}

/**
 * Reads a JSON-RPC message's envelope without parsing its payload: a validating scanner walks the
 * line once (as `JSON.parse` would, but allocating nothing for the payload) and gives `params` and
 * `result` objects/arrays as {@link RawJson} text. A hop that only routes (the proxy chain's
 * conductor, a component with no handler for the method) then writes that text back out unparsed.
 * Anything the scanner does not take (malformed JSON, nesting over the limit, a batch, unknown or
 * repeated envelope members, `$/cancel_request`) returns `undefined`: the caller then takes the
 * full `JSON.parse` path, so errors and edge cases stay exactly those of that path.
 */
import { CANCEL_REQUEST_METHOD } from '../jsonrpc.js';
import { exactId } from './json-guard.js';
import { RawJson, type RawField } from './raw-value.js';

const FAIL = -1;
const QUOTE = 34;
const BACKSLASH = 92;

/** A member of a `proxy/successor` envelope's params the scanner recorded: its name and value span. */
type Member = RawField;

/** The scanner's state: one line at a time (a scan runs no callbacks, so it cannot be re-entered). */
let src = '';
let len = 0;
let maxDepth = 0;
/** Set by {@link scanString}: the literal just scanned had an escape sequence. */
let escaped = false;
/** The line has a character below U+0020 (JSON allows \t \n \r between tokens, none inside strings). */
let hasControl = false;
/** Index of the next backslash at or after the string being scanned (`len` for none; -1 before the first look). */
let nextBackslash = -1;
/** The envelope's method, read so far, is `proxy/successor`. */
let successor = false;
const SUCCESSOR_TEXT = '"proxy/successor"';
const CONTROL = /[\u0000-\u001f]/;

/** Starts a scan of `text`. */
function begin(text: string, limit: number): void {
  src = text;
  len = text.length;
  maxDepth = limit;
  hasControl = CONTROL.test(text);
  nextBackslash = -1;
  successor = false;
}

function skipWs(i: number): number {
  for (; i < len; i++) {
    const c = src.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function skipDigits(i: number): number {
  while (isDigit(src.charCodeAt(i))) i++;
  return i;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** Single-character escapes JSON allows after a backslash: " \ / b f n r t. */
function isShortEscape(c: number): boolean {
  return c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116;
}

/**
 * Index past the string literal opening at `i` (a quote), or FAIL (unterminated, bad escape, raw
 * control character). A literal with neither (the line has no control character, and no
 * backslash before its closing quote) is jumped over with native `indexOf`, like `JSON.parse`'s
 * own fast path; only the others are checked character by character.
 */
function scanString(i: number): number {
  if (!hasControl) {
    const q = src.indexOf('"', i + 1);
    if (q === -1) return FAIL;
    if (nextBackslash < i) nextBackslash = src.indexOf('\\', i);
    if (nextBackslash === -1) nextBackslash = len;
    if (nextBackslash > q) {
      escaped = false;
      return q + 1;
    }
  }
  return scanStringSlowly(i);
}

function scanStringSlowly(i: number): number {
  escaped = false;
  for (let j = i + 1; j < len; j++) {
    const c = src.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) {
      escaped = true;
      const e = src.charCodeAt(++j);
      if (e === 117) {
        const h = j + 1;
        if (!(isHex(src.charCodeAt(h)) && isHex(src.charCodeAt(h + 1)) && isHex(src.charCodeAt(h + 2)))) return FAIL;
        if (!isHex(src.charCodeAt(h + 3))) return FAIL;
        j += 4;
      } else if (!isShortEscape(e)) return FAIL;
    } else if (c < 32) return FAIL;
  }
  return FAIL;
}

/** Index past the number starting at `i` (JSON's grammar: no leading zeros, no bare dot or exponent), or FAIL. */
function scanNumber(i: number): number {
  let j = src.charCodeAt(i) === 45 ? i + 1 : i;
  const first = src.charCodeAt(j);
  if (first === 48) j++;
  else if (first >= 49 && first <= 57) j = skipDigits(j + 1);
  else return FAIL;
  if (src.charCodeAt(j) === 46) {
    if (!isDigit(src.charCodeAt(j + 1))) return FAIL;
    j = skipDigits(j + 2);
  }
  const e = src.charCodeAt(j);
  if (e === 101 || e === 69) {
    let k = j + 1;
    const sign = src.charCodeAt(k);
    if (sign === 43 || sign === 45) k++;
    if (!isDigit(src.charCodeAt(k))) return FAIL;
    j = skipDigits(k + 1);
  }
  return j;
}

/** Index past the value starting at `i` (no whitespace before it), or FAIL. */
function scanValue(i: number, depth: number, fields: Member[] | undefined): number {
  const c = src.charCodeAt(i);
  if (c === QUOTE) return scanString(i);
  if (c === 123) return scanObject(i, depth + 1, fields, i);
  if (c === 91) return scanArray(i, depth + 1);
  if (c === 116) return src.startsWith('true', i) ? i + 4 : FAIL;
  if (c === 102) return src.startsWith('false', i) ? i + 5 : FAIL;
  if (c === 110) return src.startsWith('null', i) ? i + 4 : FAIL;
  return scanNumber(i);
}

/**
 * Index past the object opening at `i`, or FAIL. With `fields`, records each member (the members
 * of a `proxy/successor` envelope's params), offsets from `base`, the object's opening brace.
 */
function scanObject(i: number, depth: number, fields: Member[] | undefined, base: number): number {
  if (depth > maxDepth) return FAIL;
  let j = skipWs(i + 1);
  if (src.charCodeAt(j) === 125) return j + 1;
  for (;;) {
    if (src.charCodeAt(j) !== QUOTE) return FAIL;
    const keyStart = j;
    j = scanString(j);
    if (j === FAIL) return FAIL;
    const name = fields ? keyText(keyStart, j) : '';
    j = skipWs(j);
    if (src.charCodeAt(j) !== 58) return FAIL;
    const start = skipWs(j + 1);
    j = scanValue(start, depth, undefined);
    if (j === FAIL) return FAIL;
    fields?.push({ name, start: start - base, end: j - base });
    j = skipWs(j);
    const c = src.charCodeAt(j);
    if (c === 125) return j + 1;
    if (c !== 44) return FAIL;
    j = skipWs(j + 1);
  }
}

function scanArray(i: number, depth: number): number {
  if (depth > maxDepth) return FAIL;
  let j = skipWs(i + 1);
  if (src.charCodeAt(j) === 93) return j + 1;
  for (;;) {
    j = scanValue(j, depth, undefined);
    if (j === FAIL) return FAIL;
    j = skipWs(j);
    const c = src.charCodeAt(j);
    if (c === 93) return j + 1;
    if (c !== 44) return FAIL;
    j = skipWs(j + 1);
  }
}

/** The name a key literal spans (`escaped` is the scan's flag for it). */
function keyText(start: number, end: number): string {
  if (!escaped) return src.slice(start + 1, end - 1);
  const name: unknown = JSON.parse(src.slice(start, end));
  return String(name);
}

/**
 * The span `[start, end)` of the one JSON value in `text`, when `text` is exactly one valid JSON
 * value (whitespace around it allowed) nested no deeper than `limit`; else undefined. Exported for
 * the property tests that hold the scanner to `JSON.parse`.
 */
export function scanJsonValue(text: string, limit: number): { start: number; end: number } | undefined {
  begin(text, limit);
  const start = skipWs(0);
  let end = start < len ? scanValue(start, 0, undefined) : FAIL;
  if (end !== FAIL && skipWs(end) !== len) end = FAIL;
  src = '';
  return end === FAIL ? undefined : { start, end };
}

/**
 * One JSON-RPC message read from `line` with its `params`/`result` object or array left as
 * {@link RawJson}; the other members parsed (an id beyond 2^53 or with digits a double cannot hold
 * kept exact, as the transports do). `undefined` for whatever the full parse path must handle: not
 * JSON, not one object, deeper than `limit`, a member outside the envelope or one given twice,
 * `$/cancel_request` (the peer reads its params).
 */
export function readLazyMessage(line: string, limit: number): Record<string, unknown> | undefined {
  begin(line, limit);
  const m = scanPlainNotification() ?? scanEnvelope(skipWs(0));
  src = '';
  return m;
}

const NOTIFICATION_HEAD = '{"jsonrpc":"2.0","method":"';
const PARAMS_HEAD = '","params":';

/**
 * True when `line` is exactly `{"jsonrpc":"2.0","method":"<method>","params":<params>}`, the form the
 * SDKs and a peer write (and {@link readLazyMessage}'s fast path reads), given the `method` and the
 * params text the scanner read from it (so the members are these, each once, the method without
 * escapes): the head and the length then leave room for nothing else.
 */
export function isPlainNotificationLine(line: string, method: string, params: string): boolean {
  const at = NOTIFICATION_HEAD.length + method.length;
  return (
    line.length === at + PARAMS_HEAD.length + params.length + 1 &&
    line.startsWith(NOTIFICATION_HEAD) &&
    line.startsWith(method, NOTIFICATION_HEAD.length) &&
    line.startsWith(PARAMS_HEAD, at)
  );
}

/**
 * The notification most lines are, as the SDKs and acp-kit write them:
 * `{"jsonrpc":"2.0","method":"<m>","params":<object or array>}`, no spacing, `m` without escapes.
 * Read without the member loop (the same message {@link scanEnvelope} makes of it, the params still
 * validated); undefined for anything else, which the member loop then reads.
 */
function scanPlainNotification(): Record<string, unknown> | undefined {
  if (maxDepth < 1 || !src.startsWith(NOTIFICATION_HEAD)) return undefined;
  const methodStart = NOTIFICATION_HEAD.length;
  const methodEnd = src.indexOf('"', methodStart);
  if (methodEnd === -1 || !src.startsWith(PARAMS_HEAD, methodEnd)) return undefined;
  const method = src.slice(methodStart, methodEnd);
  // escapes, control characters and the methods the member loop treats apart go that way
  if (hasControl || method.indexOf('\\') !== -1 || method === CANCEL_REQUEST_METHOD || method === 'proxy/successor')
    return undefined;
  const start = methodEnd + PARAMS_HEAD.length;
  const c = src.charCodeAt(start);
  if (c !== 123 && c !== 91) return undefined;
  const end = scanValue(start, 1, undefined);
  if (end === FAIL || end !== len - 1 || src.charCodeAt(end) !== 125) return undefined;
  return { jsonrpc: '2.0', method, params: new RawJson(src.slice(start, end)) };
}

/** The envelope's members, by the order of {@link ENVELOPE_KEYS}; OTHER for any other name. */
const JSONRPC = 0;
const ID = 1;
const METHOD = 2;
const PARAMS = 3;
const RESULT = 4;
const ERROR = 5;
const OTHER = -1;
const ENVELOPE_KEYS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'];

/** Which envelope member the key literal `[start, end)` names, compared in place (no string made). */
function envelopeKey(start: number, end: number): number {
  if (escaped) return ENVELOPE_KEYS.indexOf(keyText(start, end));
  const n = end - start - 2;
  const k = start + 1;
  if (n === 6) {
    const c = src.charCodeAt(k);
    if (c === 109) return src.startsWith('method', k) ? METHOD : OTHER;
    if (c === 112) return src.startsWith('params', k) ? PARAMS : OTHER;
    return c === 114 && src.startsWith('result', k) ? RESULT : OTHER;
  }
  if (n === 7) return src.startsWith('jsonrpc', k) ? JSONRPC : OTHER;
  if (n === 2) return src.startsWith('id', k) ? ID : OTHER;
  return n === 5 && src.startsWith('error', k) ? ERROR : OTHER;
}

/**
 * The message whose envelope object opens at `i`, built member by member as the scan goes (names
 * compared in place, values made only for the envelope's own members); undefined where
 * {@link readLazyMessage} says.
 */
function scanEnvelope(i: number): Record<string, unknown> | undefined {
  if (src.charCodeAt(i) !== 123 || maxDepth < 1) return undefined;
  const m: Record<string, unknown> = {};
  let j = skipWs(i + 1);
  if (src.charCodeAt(j) === 125) return finish(m, j + 1);
  for (;;) {
    if (src.charCodeAt(j) !== QUOTE) return undefined;
    const keyStart = j;
    j = scanString(j);
    if (j === FAIL) return undefined;
    const key = envelopeKey(keyStart, j);
    if (key === OTHER) return undefined;
    j = skipWs(j);
    if (src.charCodeAt(j) !== 58) return undefined;
    const start = skipWs(j + 1);
    // the wrapper's members are wanted only for a proxy/successor whose method came first (as writers put it)
    const sub = key === PARAMS && successor && src.charCodeAt(start) === 123 ? [] : undefined;
    j = scanValue(start, 1, sub);
    if (j === FAIL || !setMember(m, key, start, j, sub)) return undefined;
    if (key === METHOD && j - start === SUCCESSOR_TEXT.length) successor = src.startsWith(SUCCESSOR_TEXT, start);
    j = skipWs(j);
    const c = src.charCodeAt(j);
    if (c === 125) return finish(m, j + 1);
    if (c !== 44) return undefined;
    j = skipWs(j + 1);
  }
}

/** The message once its object closed at `end`: nothing but whitespace may follow; a cancel is the peer's. */
function finish(m: Record<string, unknown>, end: number): Record<string, unknown> | undefined {
  return skipWs(end) === len && m.method !== CANCEL_REQUEST_METHOD ? m : undefined;
}

/**
 * Sets member `key` of `m` from the value text `[start, end)` (just scanned: `escaped` is its
 * flag when a string); false when `m` already has it (JSON.parse keeps the last of repeated
 * members; the full path does that). Constant names keep `m`'s shape one of a few.
 */
function setMember(m: Record<string, unknown>, key: number, start: number, end: number, fields?: Member[]): boolean {
  const c = src.charCodeAt(start);
  switch (key) {
    case PARAMS:
    case RESULT: {
      const text = src.slice(start, end);
      const v = c === 123 || c === 91 ? new RawJson(text, fields) : JSON.parse(text);
      if (key === PARAMS) {
        if (m.params !== undefined) return false;
        m.params = v;
      } else {
        if (m.result !== undefined) return false;
        m.result = v;
      }
      return true;
    }
    case ID: {
      if (m.id !== undefined) return false;
      const text = src.slice(start, end);
      m.id = exactId(JSON.parse(text), text);
      return true;
    }
    default:
      return setStringMember(m, key, start, end, c);
  }
}

/** `jsonrpc`, `method` or `error`: a string without escapes is cut from the line, anything else parsed. */
function setStringMember(m: Record<string, unknown>, key: number, start: number, end: number, c: number): boolean {
  const v: unknown =
    c !== QUOTE || escaped
      ? JSON.parse(src.slice(start, end))
      : end - start === 5 && src.startsWith('"2.0"', start)
        ? '2.0'
        : src.slice(start + 1, end - 1);
  if (key === JSONRPC) {
    if (m.jsonrpc !== undefined) return false;
    m.jsonrpc = v;
  } else if (key === METHOD) {
    if (m.method !== undefined) return false;
    m.method = v;
  } else {
    if (m.error !== undefined) return false;
    m.error = v;
  }
  return true;
}

/**
 * The `proxy/successor` envelope `{ method, params? }` read from its text without parsing the
 * wrapped params, when it is just that (a string method, params an object or array); otherwise
 * undefined, and the caller reads the parsed value with the full checks.
 */
export function readRawSuccessor(raw: RawJson): { method: string; params?: RawJson } | undefined {
  const fields = raw.fields;
  if (!fields || fields.length === 0 || fields.length > 2) return undefined;
  let method: string | undefined;
  let params: RawJson | undefined;
  for (const f of fields) {
    const c = raw.text.charCodeAt(f.start);
    if (f.name === 'method' && method === undefined && c === QUOTE) {
      const text = raw.text.slice(f.start, f.end);
      if (text.indexOf('\\') !== -1) return undefined;
      method = text.slice(1, -1);
    } else if (f.name === 'params' && params === undefined && (c === 123 || c === 91)) {
      params = new RawJson(raw.text.slice(f.start, f.end));
    } else return undefined;
  }
  if (method === undefined) return undefined;
  return params ? { method, params } : { method };
}

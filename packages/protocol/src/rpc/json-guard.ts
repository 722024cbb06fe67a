/**
 * Input guards for JSON lines, kept off the hot path: each scan runs only when a cheap test
 * (line length, a parsed id that is not a safe integer) says it may matter.
 */
import { isObj } from '../codec/util.js';
import { ExactNumberId } from './request-id.js';
import { RawJson } from './raw-value.js';

/**
 * Deepest nesting of objects/arrays accepted in one incoming message (the envelope counts as
 * level 1). Real ACP messages stay below ~15 levels (envelope, params, update, content, `_meta`);
 * 128 leaves ample room for extension data while keeping recursive code (schema validation,
 * `JSON.stringify` of stored lines, user handlers) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** Index just past the string literal opening at `start` (a `"`), or `line.length` when unterminated. */
function skipString(line: string, start: number): number {
  let q = start;
  for (;;) {
    q = line.indexOf('"', q + 1);
    if (q === -1) return line.length;
    // an escaped quote has an odd run of backslashes before it
    let b = q - 1;
    while (line.charCodeAt(b) === BACKSLASH) b--;
    if ((q - b) % 2 === 1) return q + 1;
  }
}

/**
 * True when `line` nests objects/arrays deeper than `limit`. Iterative (no recursion, so no stack
 * overflow on hostile input) and jumps over string contents with `indexOf`, so the cost is in
 * the number of structural characters, not the text. Lines shorter than `2 * limit + 2`, or with
 * at most `limit` opening brackets, cannot nest that deep and are not scanned.
 */
export function nestedDeeperThan(line: string, limit: number): boolean {
  const n = line.length;
  if (n < 2 * limit + 2) return false;
  // depth never exceeds the number of `{` and `[` (string contents included): counting them with
  // native indexOf settles ordinary messages without a character loop
  let opens = 0;
  for (let i = line.indexOf('{'); i !== -1 && opens <= limit; i = line.indexOf('{', i + 1)) opens++;
  for (let i = line.indexOf('['); i !== -1 && opens <= limit; i = line.indexOf('[', i + 1)) opens++;
  if (opens <= limit) return false;
  let depth = 0;
  for (let i = 0; i < n;) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(line, i);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    i++;
  }
  return false;
}

const INTEGER = /^-?(0|[1-9][0-9]*)$/;

/** JSON's four whitespace characters (a WebSocket or HTTP body may be pretty-printed across lines). */
const isJsonSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * The raw text of the top-level `"id"` member of each message on the line: for an object, `[token]`;
 * for an array (a batch), one entry per element (`undefined` where there is none). Used only when
 * `JSON.parse` produced an id that is not a safe integer, to recover its exact digits.
 */
export function rawIdTokens(line: string): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  const n = line.length;
  let depth = 0;
  let isBatch = false;
  let started = false;
  // depth at which message members live: 1 for a single message, 2 inside a batch
  let memberDepth = 1;
  for (let i = 0; i < n;) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      const end = skipString(line, i);
      if (depth === memberDepth && line.slice(i, end) === '"id"') {
        let j = end;
        while (j < n && isJsonSpace(line.charCodeAt(j))) j++;
        if (line.charCodeAt(j) === 58 /* : */) {
          j++;
          while (j < n && isJsonSpace(line.charCodeAt(j))) j++;
          let k = j;
          while (k < n && /[-+0-9.eE]/.test(line.charAt(k))) k++;
          const token = line.slice(j, k);
          if (token.length > 0) out[out.length - 1] = token;
          i = k;
          continue;
        }
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (!started) {
        started = true;
        isBatch = c === OPEN_BRACKET;
        memberDepth = isBatch ? 2 : 1;
        if (!isBatch) out.push(undefined);
      } else if (isBatch && depth === 2) out.push(undefined);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    i++;
  }
  return out;
}

/**
 * The exact form of an id `JSON.parse` may have changed, from its raw `token`: a `bigint` for a plain
 * integer beyond 2^53, an {@link ExactNumberId} for any other number whose JSON text is not the
 * token (digits a double cannot hold, an exponent, `-0`), else the parsed value itself.
 */
export function exactId(parsed: unknown, token: string | undefined): unknown {
  if (typeof parsed !== 'number' || token === undefined || token === JSON.stringify(parsed)) return parsed;
  if (INTEGER.test(token) && !Number.isSafeInteger(parsed)) return BigInt(token);
  return new ExactNumberId(token);
}

/** Characters that may continue a JSON number token. */
const NUMBER_CHAR = /[-+0-9.eE]/;

/**
 * True when the message's numeric id may not be the text it came as. A safe integer is settled by
 * finding `"id":<its digits>` (not followed by more of a number) where compact writers put the
 * top-level id: first, right after `"jsonrpc":"2.0"`, or last. Anywhere else it may be a nested
 * `"id"` of the params (`"params":{"id":5},"id":5.0`), so the id is read from the line.
 */
function inexactId(m: unknown, line: string): boolean {
  if (m === null || typeof m !== 'object' || !('id' in m)) return false;
  const id = m.id;
  if (typeof id !== 'number') return false;
  if (!Number.isSafeInteger(id) || Object.is(id, -0)) return true;
  const digits = String(id);
  for (const head of ID_FIRST) {
    if (!line.startsWith(head) || !line.startsWith(digits, head.length)) continue;
    const next = line[head.length + digits.length];
    if (next !== undefined && !NUMBER_CHAR.test(next)) return false;
  }
  return !line.endsWith(`,"id":${digits}}`);
}

/** Openings of a compact line whose next value is the top-level id. */
const ID_FIRST = ['{"jsonrpc":"2.0","id":', '{"id":'];

/**
 * Replaces ids that JSON.parse changed (integers beyond 2^53, digits a double cannot hold, other
 * spellings of a number) with their exact form read from the raw line; returns the message (mutated in place).
 */
export function restoreExactIds(message: unknown, line: string): unknown {
  if (Array.isArray(message)) {
    if (!message.some((m) => inexactId(m, line))) return message;
    const tokens = rawIdTokens(line);
    message.forEach((m: unknown, i) => {
      if (isObj(m) && typeof m.id === 'number') m.id = exactId(m.id, tokens[i]);
    });
    return message;
  }
  if (inexactId(message, line) && isObj(message)) message.id = exactId(message.id, rawIdTokens(line)[0]);
  return message;
}

/** Quick per-message test used by the transports (a property read and, for numeric ids, one search). */
export function mayHaveUnsafeId(message: unknown, line: string): boolean {
  if (Array.isArray(message)) return message.some((m) => inexactId(m, line));
  return inexactId(message, line);
}

const MARKER = `\u0000acp-kit-exact-id-${Math.random().toString(36).slice(2)}`;
const MARKER_JSON = JSON.stringify(MARKER);

/** The JSON text of an id `JSON.stringify` cannot write as received, else undefined. */
function exactIdText(m: unknown): string | undefined {
  if (!isObj(m)) return undefined;
  const id = m.id;
  return typeof id === 'bigint' || id instanceof ExactNumberId ? id.toString() : undefined;
}

/**
 * True when a message carries received text to splice: its `params` or `result`, or the `params`
 * of a `proxy/successor` envelope in its `params`, is a {@link RawJson}.
 */
function holdsRaw(m: Record<string, unknown>): boolean {
  const p = m.params;
  return p instanceof RawJson || m.result instanceof RawJson || (isObj(p) && p.params instanceof RawJson);
}

/** The envelope's member names as written, so splicing does not stringify them per message. */
const KEY_TEXT: ReadonlyMap<string, string> = new Map(
  ['jsonrpc', 'id', 'method', 'params', 'result'].map((k) => [k, `"${k}":`]),
);

/**
 * The text of an object whose members may be {@link RawJson} (written as received) or, one level
 * down, objects holding one; the top-level id exact. Members `JSON.stringify` leaves out (undefined,
 * functions) are left out here too.
 */
function spliceObject(o: Record<string, unknown>, top: boolean): string {
  let out = '';
  for (const key of Object.keys(o)) {
    const v = o[key];
    const text =
      v instanceof RawJson
        ? v.text
        : v === '2.0' && key === 'jsonrpc'
          ? '"2.0"'
          : top && key === 'id'
            ? (exactIdText(o) ?? JSON.stringify(v))
            : top && isObj(v) && v.params instanceof RawJson
              ? spliceObject(v, false)
              : stringifyMember(v);
    if (text !== undefined) out += (out === '' ? '' : ',') + (KEY_TEXT.get(key) ?? JSON.stringify(key) + ':') + text;
  }
  return '{' + out + '}';
}

/** `JSON.stringify` of a member's value: undefined for what it leaves out (undefined, a function). */
function stringifyMember(v: unknown): string | undefined {
  const text: string | undefined = JSON.stringify(v);
  return text;
}

function stringifyOne(m: unknown): string {
  if (isObj(m) && holdsRaw(m)) return spliceObject(m, true);
  const text = exactIdText(m);
  if (text !== undefined && isObj(m)) {
    // the marker is unique to this process, so the one occurrence is the id's place
    return JSON.stringify({ ...m, id: MARKER }).replace(MARKER_JSON, text);
  }
  return JSON.stringify(m);
}

/**
 * The JSON text of a message, writing a top-level `bigint` or {@link ExactNumberId} id (an exact id
 * echoed back; a batch entry's too) digit for digit. Any other `bigint` still throws, as
 * `JSON.stringify` does.
 */
export function stringifyMessage(message: object): string {
  if (Array.isArray(message))
    return message.some((m) => exactIdText(m) !== undefined)
      ? `[${message.map(stringifyOne).join(',')}]`
      : JSON.stringify(message);
  return stringifyOne(message);
}

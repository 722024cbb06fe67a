import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readLazyMessage, readRawSuccessor, scanJsonValue } from '../src/rpc/envelope-scan.js';
import { stringifyMessage } from '../src/rpc/json-guard.js';
import { RawJson, plainJson } from '../src/rpc/raw-value.js';
import { ExactNumberId } from '../src/rpc/request-id.js';

// The envelope scanner is a JSON parser for the parts of a line a routing hop needs: it must take
// exactly the texts JSON.parse takes and read the same values from them.

const WS = fc.array(fc.constantFrom('', '', ' ', '\t', '\n', '\r', '  \r\n '), { minLength: 1, maxLength: 8 });

/** JSON text of `v` with the whitespace `ws` (cycled) between every two tokens. */
function spaced(v: unknown, ws: readonly string[]): string {
  let k = 0;
  const w = (): string => ws[k++ % ws.length] ?? '';
  const write = (x: unknown): string => {
    if (Array.isArray(x)) return '[' + w() + x.map((e) => w() + write(e) + w()).join(',') + w() + ']';
    if (x instanceof RawJson) return x.text;
    if (typeof x === 'object' && x !== null)
      return (
        '{' +
        w() +
        Object.entries(x)
          .map(([key, e]) => w() + JSON.stringify(key) + w() + ':' + w() + write(e) + w())
          .join(',') +
        '}'
      );
    return JSON.stringify(x);
  };
  return w() + write(v) + w();
}

/** Strings that look like envelope syntax, escapes and characters outside the BMP. */
const tricky = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"method":"x"', '{"id":1}', '}', ']', '\\', '"', '\\"method\\"', '\u2028', 'é', '😀', '\ud800', ''),
);
const value = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map((b) => new RawJson(String(b))),
    fc.constantFrom(true, false, null),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(tricky, fc.constantFrom('method', 'params', 'id', 'result')), tie('json'), {
      maxKeys: 4,
    }),
  ),
})).json;
const payload = fc.oneof(
  fc.dictionary(fc.oneof(tricky, fc.constantFrom('method', 'params', 'id')), value, { maxKeys: 5 }),
  fc.array(value, { maxLength: 4 }),
);
const idText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
  fc.constantFrom('1.0', '1e2', '-0', '0.1', 'null', '"a\\"b"', '"7"'),
);

/** An envelope's members in random order, each with the text it is written as. */
const envelope = fc
  .record(
    {
      jsonrpc: fc.constantFrom('"2.0"', '"1.0"', '2'),
      id: idText,
      method: fc.oneof(
        fc.constantFrom('"session/update"', '"proxy/successor"', '"_x\\/y"'),
        tricky.map((s) => JSON.stringify(s)),
      ),
      params: payload,
      result: payload,
    },
    { requiredKeys: [] },
  )
  .chain((m) => fc.tuple(fc.shuffledSubarray(Object.entries(m), { minLength: Object.keys(m).length }), WS));

function lineOf(members: ReadonlyArray<[string, unknown]>, ws: readonly string[]): string {
  const parts = members.map(([k, v]) => JSON.stringify(k) + ws[0] + ':' + (typeof v === 'string' ? v : spaced(v, ws)));
  return (ws[1] ?? '') + '{' + parts.join(',' + (ws[2] ?? '')) + '}' + (ws[3] ?? '');
}

/**
 * The id as the transports keep it (see rpc-input-limits): a plain integer beyond 2^53 as a bigint,
 * any other number JSON would not write back as it came as an ExactNumberId, else the parsed value.
 */
function exactIdOf(text: string): unknown {
  const v: unknown = JSON.parse(text);
  if (typeof v !== 'number' || JSON.stringify(v) === text) return v;
  return /^-?(0|[1-9][0-9]*)$/.test(text) && !Number.isSafeInteger(v) ? BigInt(text) : new ExactNumberId(text);
}

/** A lazily read message with its raw payloads parsed: what JSON.parse (with exact ids) gives. */
function materialized(m: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, plainJson(v)]));
}

describe('envelope scanner against JSON.parse', () => {
  it('takes every JSON value, with any whitespace between tokens, and spans exactly the value', () => {
    fc.assert(
      fc.property(value, WS, (v, ws) => {
        const text = spaced(v, ws);
        const span = scanJsonValue(text, 1000);
        expect(span).toBeDefined();
        if (!span) return;
        expect(text.slice(0, span.start).trim()).toBe('');
        expect(text.slice(span.end).trim()).toBe('');
        expect(JSON.parse(text.slice(span.start, span.end))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses exactly the texts JSON.parse refuses (random edits of valid lines)', () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.constantFrom('', '"', '\\', ',', ':', '{', '}', '[', ']', '0', '-', '.', 'e', 'u', 't', ' ', '\u0001', 'x'),
      fc.boolean(),
    );
    fc.assert(
      fc.property(value, WS, fc.array(edit, { minLength: 1, maxLength: 3 }), (v, ws, edits) => {
        let text = spaced(v, ws);
        for (const [at, ch, replace] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + ch + text.slice(replace ? i + 1 : i);
        }
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        expect(scanJsonValue(text, 1000) !== undefined).toBe(parses);
        if (!parses) expect(readLazyMessage(text, 1000)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('reads an envelope in any member order as JSON.parse does, payloads as their exact text', () => {
    fc.assert(
      fc.property(envelope, ([members, ws]) => {
        const line = lineOf(members, ws);
        const m = readLazyMessage(line, 1000);
        const method = members.find(([k]) => k === 'method')?.[1];
        if (method === JSON.stringify('$/cancel_request')) return expect(m).toBeUndefined();
        expect(m).toBeDefined();
        if (!m) return;
        const { id, ...rest } = materialized(m);
        const { id: parsedId, ...expected } = JSON.parse(line) as Record<string, unknown>;
        expect(rest).toEqual(expected);
        const idText = members.find(([k]) => k === 'id')?.[1];
        if (typeof idText === 'string') expect(id).toEqual(exactIdOf(idText));
        else expect(id).toBe(parsedId);
        for (const key of ['params', 'result'] as const) {
          const raw = m[key];
          if (!(raw instanceof RawJson)) continue;
          // the text as it stood in the line, whitespace and all
          expect(line).toContain(raw.text);
          expect(raw.text).toBe(raw.text.trim());
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a notification written as the SDKs write it (the fast path) reads exactly as through the member loop', () => {
    const method = fc.oneof(tricky, fc.constantFrom('session/update', 'proxy/successor', '$/cancel_request', 'a"b'));
    fc.assert(
      fc.property(method, payload, fc.integer({ min: 1, max: 6 }), (m, params, depth) => {
        const line = stringifyMessage({ jsonrpc: '2.0', method: m, params });
        // a leading space takes the member loop; both must agree, and with JSON.parse
        const fast = readLazyMessage(line, depth);
        expect(fast).toEqual(readLazyMessage(' ' + line, depth));
        if (fast) expect(materialized(fast)).toEqual(JSON.parse(line));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves to the full parse what it must not read: batches, repeated or unknown members, cancels, deep nesting', () => {
    for (const line of [
      '[{"jsonrpc":"2.0","method":"a"}]',
      '{"jsonrpc":"2.0","method":"a","method":"b"}',
      '{"jsonrpc":"2.0","method":"a","extra":1}',
      '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}',
      '{"jsonrpc":"2.0","method":"a","params":' + '['.repeat(10) + ']'.repeat(10) + '}',
      '{"jsonrpc":"2.0","method":"a\u0001"}',
      '{"jsonrpc":"2.0","method":"a"} x',
    ]) {
      expect(readLazyMessage(line, 8), line).toBeUndefined();
    }
    expect(readLazyMessage('{"jsonrpc":"2.0","method":"a","params":' + '['.repeat(7) + ']'.repeat(7) + '}', 8)).toEqual(
      {
        jsonrpc: '2.0',
        method: 'a',
        params: expect.any(RawJson),
      },
    );
  });

  it('keeps ids exact: beyond 2^53 a bigint, other spellings an ExactNumberId', () => {
    expect(readLazyMessage('{"id":12345678901234567890,"result":{}}', 8)?.id).toBe(12345678901234567890n);
    expect(readLazyMessage('{"id":1.0,"result":{}}', 8)?.id).toEqual(new ExactNumberId('1.0'));
    expect(readLazyMessage('{"id":7,"result":{}}', 8)?.id).toBe(7);
  });
});

describe('proxy/successor envelope from its text', () => {
  const inner = '{ "sessionId" : "s", "n": 12345678901234567890 }';
  it('reads method and params in either order, params left as their text', () => {
    for (const body of [
      `{"method":"session/update","params":${inner}}`,
      `{ "params" : ${inner} , "method":"session/update" }`,
    ]) {
      const m = readLazyMessage(`{"jsonrpc":"2.0","method":"proxy/successor","params":${body}}`, 8);
      const raw = m?.params;
      expect(raw).toBeInstanceOf(RawJson);
      const env = raw instanceof RawJson ? readRawSuccessor(raw) : undefined;
      expect(env?.method).toBe('session/update');
      expect(env?.params).toBeInstanceOf(RawJson);
      expect(env?.params instanceof RawJson && env.params.text).toBe(inner);
    }
  });

  it('gives anything else to the full checks: _meta, an escaped method, null or scalar params, no method', () => {
    for (const body of [
      '{"method":"a","params":{},"_meta":{}}',
      '{"method":"a\\/b","params":{}}',
      '{"method":"a","params":null}',
      '{"method":"a","params":3}',
      '{"params":{}}',
      '{"method":1}',
    ]) {
      const raw = readLazyMessage(`{"method":"proxy/successor","params":${body}}`, 8)?.params;
      expect(raw instanceof RawJson ? readRawSuccessor(raw) : 'not raw', body).toBeUndefined();
    }
  });
});

describe('writing a message that holds received text', () => {
  it('splices params, results and a proxy/successor envelope params as received; the id stays exact', () => {
    const inner = new RawJson('{ "n" : 12345678901234567890 }');
    expect(stringifyMessage({ jsonrpc: '2.0', id: 3, method: 'm', params: inner })).toBe(
      '{"jsonrpc":"2.0","id":3,"method":"m","params":{ "n" : 12345678901234567890 }}',
    );
    expect(stringifyMessage({ jsonrpc: '2.0', id: 12345678901234567890n, result: inner })).toBe(
      '{"jsonrpc":"2.0","id":12345678901234567890,"result":{ "n" : 12345678901234567890 }}',
    );
    expect(
      stringifyMessage({
        jsonrpc: '2.0',
        method: 'proxy/successor',
        params: { method: 'x', params: inner, skip: undefined },
      }),
    ).toBe(
      '{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"x","params":{ "n" : 12345678901234567890 }}}',
    );
  });

  it('writes received text deeper down (or anywhere else) as its parsed value', () => {
    const deep = { jsonrpc: '2.0', method: 'm', params: { a: { b: new RawJson('[1, 2]') } } };
    expect(stringifyMessage(deep)).toBe('{"jsonrpc":"2.0","method":"m","params":{"a":{"b":[1,2]}}}');
  });
});

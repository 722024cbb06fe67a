// Issue 24 item 1 (exact ids on every transport): a request id beyond 2^53 keeps its exact digits
// whatever JSON whitespace surrounds it. A WebSocket message or an HTTP body may be pretty-printed
// across lines, so `\n` and `\r` sit around `"id":` as often as spaces do.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { rawIdTokens, restoreExactIds } from '../src/rpc/json-guard.js';

const WS = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '\r\n'), { maxLength: 4 }).map((a) => a.join(''));
const BIG = fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 70n }).map((b) => b.toString());

it('rawIdTokens and restoreExactIds read a big id exactly with any JSON whitespace around its colon', () => {
  fc.assert(
    fc.property(WS, WS, WS, WS, BIG, fc.boolean(), (a, b, c, d, digits, idFirst) => {
      const id = `"id"${b}:${c}${digits}`;
      const method = `"method"${b}:${c}"session/list"`;
      const members = idFirst ? [id, method] : [method, id];
      const text = `{${a}"jsonrpc":"2.0",${d}${members.join(`,${a}`)}${d}}`;
      expect(rawIdTokens(text)).toEqual([digits]);
      const message = restoreExactIds(JSON.parse(text), text) as { id: unknown };
      expect(String(message.id)).toBe(digits);
    }),
    { numRuns: 500 },
  );
});

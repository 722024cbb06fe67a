// Every request id shape (fast-check) sent as raw text on a raw link, and the check of each answer:
// the id exactly as sent (a number digit for digit), or -32600 with id null for ids JSON-RPC does
// not allow. Used by the transport tests (remote-request-ids) and the cluster's (cluster-request-ids).
import fc from 'fast-check';
import { expect } from 'vitest';
import { rawIdTokens } from '../../packages/protocol/src/rpc/json-guard.js';
import type { RawLink } from './raw-links.js';

/** Numbers JSON.parse cannot keep as written: beyond 2^53, beyond a double's digits, exponents, -0. */
const inexactNumber = fc.oneof(
  fc
    .bigInt({ min: -(10n ** 40n), max: 10n ** 40n })
    .filter((n) => n > 2n ** 53n || n < -(2n ** 53n))
    .map(String),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -400, max: 400 })).map(([m, e]) => `${m}e${e}`),
  fc
    .tuple(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), fc.stringMatching(/^[0-9]{1,30}$/))
    .map(([i, f]) => `${i}.${f}`),
  fc.constantFrom(
    '9007199254740993',
    '-9007199254740993',
    '-0',
    '1.0',
    '1E2',
    '1e400',
    '-1e+400',
    '0.1000000000000000055511151231257827',
  ),
);
/** Every id shape, as the JSON text that goes on the wire. */
const idText = fc.oneof(
  inexactNumber,
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.string({ maxLength: 40, unit: 'grapheme' }).map((s) => JSON.stringify(s)),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => JSON.stringify('x'.repeat(n))),
  fc.constant('null'),
  fc.constantFrom('{}', '{"a":1}', '[]', '[1]', 'true', 'false'),
);
/** A `method` request carrying each id (its place among the members and the spacing vary). */
const requestOf = (method: string, params: string) =>
  fc.record({ id: idText, idFirst: fc.boolean(), spaced: fc.boolean() }).map(({ id, idFirst, spaced }) => {
    const member = spaced ? `"id" : ${id}` : `"id":${id}`;
    const rest = `"method":${JSON.stringify(method)},"params":${params}`;
    return { id, text: idFirst ? `{"jsonrpc":"2.0",${member},${rest}}` : `{"jsonrpc":"2.0",${rest},${member}}` };
  });

/** The answer to `sentId` carries it exactly, or is -32600 with id null for an id JSON-RPC does not allow. */
export function expectEcho(sentId: string, response: string): void {
  const sent: unknown = JSON.parse(sentId);
  const got = JSON.parse(response);
  if (typeof sent === 'object' && sent !== null)
    return void expect(
      [got.id, got.error?.code],
      `answer to id ${sentId.slice(0, 80)}: ${response.slice(0, 300)}`,
    ).toEqual([null, -32600]);
  if (typeof sent === 'boolean')
    return void expect([got.id, got.error?.code], response.slice(0, 300)).toEqual([null, -32600]);
  if (typeof sent === 'number')
    return void expect(rawIdTokens(response)[0], `the id in ${response.slice(0, 300)}`).toBe(sentId);
  expect(got.id, response.slice(0, 300)).toEqual(sent);
}

/** Sends every generated request on `link` in turn and checks each answer. */
export async function roundTrips(
  link: RawLink,
  numRuns: number,
  method = 'session/list',
  params = '{}',
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(requestOf(method, params), async ({ id, text }) => {
      await link.send(text);
      expectEcho(id, await link.response());
    }),
    { numRuns },
  );
}

// The pass-through lane (packages/tools/src/conductor/pass-through.ts): notifications a conductor or a
// component only routes are written as text past the peers. The lines it builds must be exactly the
// lines the peer path writes (any member order and whitespace in what came in), and over real
// processes (`acp-kit conduct` with two pass-through components) payloads cross the chain byte for
// byte, in order, while requests still take the peer path.
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readLazyMessage } from '../../protocol/src/rpc/envelope-scan.js';
import { stringifyMessage } from '../../protocol/src/rpc/json-guard.js';
import { notificationLine, passNotification, successorLine, unwrapSuccessor } from '../src/conductor/pass-through.js';
import { BIN } from '../../../test/fixtures/cli-helpers.js';
import { fixture, RawChild } from '../../../test/support/raw-child.js';

const WS = fc.constantFrom('', ' ', '\t', '\r\n', '  ');
const payloadText = fc
  .oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), fc.array(fc.jsonValue(), { maxLength: 4 }))
  .chain((v) => fc.tuple(fc.constant(JSON.stringify(v, null, 1)), WS).map(([t, w]) => t.replace(/\n/g, w)));
const methodText = fc.oneof(
  fc.constantFrom('"session/update"', '"_x\\/y"', '"proxy/successor"', '"a\\u00e9"'),
  fc.string().map((s) => JSON.stringify(s)),
);
/** A notification line: its members (jsonrpc, method, maybe params) in any order, any whitespace. */
const notification = fc
  .record({
    method: methodText,
    params: fc.option(payloadText, { nil: undefined }),
    ws: fc.array(WS, { minLength: 4, maxLength: 4 }),
  })
  .chain((r) => {
    const members: Array<[string, string]> = [
      ['jsonrpc', '"2.0"'],
      ['method', r.method],
      ...(r.params === undefined ? [] : ([['params', r.params]] as Array<[string, string]>)),
    ];
    return fc.shuffledSubarray(members, { minLength: members.length }).map((order) => {
      const [a = '', b = '', c = '', d = ''] = r.ws;
      return a + '{' + order.map(([k, v]) => `${b}"${k}"${c}:${d}${v}`).join(',') + '}' + b;
    });
  });

describe('the pass-through lane writes what the peer path writes', () => {
  it('a line already written as the peer writes it (the SDKs, acp-kit) is written as it came', () => {
    const canonical = fc
      .record({ method: fc.string(), params: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }) })
      .map((r) => JSON.stringify({ jsonrpc: '2.0', method: r.method, params: r.params }));
    fc.assert(
      fc.property(canonical, (line) => {
        const m = readLazyMessage(line, 128);
        const n = m && passNotification(m);
        if (!n) return expect(JSON.parse(line)).toMatchObject({ method: '$/cancel_request' });
        expect(notificationLine(n, line).text).toBe(line);
        expect(notificationLine(n, line).text).toBe(notificationLine(n).text);
      }),
      { numRuns: 300 },
    );
  });

  it('a notification in any member order and spacing: notificationLine and successorLine equal the spliced peer lines', () => {
    fc.assert(
      fc.property(notification, (line) => {
        const m = readLazyMessage(line, 128);
        const method = (JSON.parse(line) as { method: string }).method;
        if (method === '$/cancel_request') return expect(m).toBeUndefined();
        const n = m && passNotification(m);
        expect(n).toBeDefined();
        if (!n) return;
        const plain =
          n.params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params: n.params };
        expect(notificationLine(n).text).toBe(stringifyMessage(plain));
        // handed the line it came from, it writes the same text, whether or not that line was already it
        expect(notificationLine(n, line).text).toBe(stringifyMessage(plain));
        const inner = n.params === undefined ? { method } : { method, params: n.params };
        expect(successorLine(n).text).toBe(
          stringifyMessage({ jsonrpc: '2.0', method: 'proxy/successor', params: inner }),
        );
        // and the envelope the next hop reads comes apart into the same notification (a method written
        // with escapes is left to the full check)
        const back = readLazyMessage(successorLine(n).text, 128);
        const wrapped = back && passNotification(back);
        const unwrapped = wrapped && unwrapSuccessor(wrapped);
        if (JSON.stringify(method).includes('\\')) expect(unwrapped).toBeUndefined();
        else expect(unwrapped && notificationLine(unwrapped).text).toBe(notificationLine(n).text);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves everything else to the peer: requests, answers, another jsonrpc, scalar or null params', () => {
    for (const line of [
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{}}',
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"1.0","method":"a","params":{}}',
      '{"method":"a","params":{}}',
      '{"jsonrpc":"2.0","method":"a","params":null}',
      '{"jsonrpc":"2.0","method":"a","params":3}',
      '{"jsonrpc":"2.0","method":1,"params":{}}',
    ]) {
      const m = readLazyMessage(line, 128);
      expect(m && passNotification(m), line).toBeUndefined();
    }
  });

  it('a proxy/successor the full check must read (extra members, scalar params) is not unwrapped here', () => {
    for (const body of ['{"method":"a","params":{},"_meta":{}}', '{"method":"a","params":3}', '{"params":{}}']) {
      const m = readLazyMessage(`{"jsonrpc":"2.0","method":"proxy/successor","params":${body}}`, 128);
      const n = m && passNotification(m);
      expect(n && unwrapSuccessor(n), body).toBeUndefined();
    }
  });
});

const PASS = fileURLToPath(new URL('../../../bench/pass-component.mjs', import.meta.url));
let conductor: RawChild | undefined;
afterEach(() => conductor?.kill());

describe('acp-kit conduct with two pass-through components over real pipes', () => {
  it('notifications cross both ways byte for byte and in order; a request between them still gets its answer', async () => {
    const c = new RawChild(BIN, [
      'conduct',
      '--',
      process.execPath,
      PASS,
      '--',
      process.execPath,
      PASS,
      '--',
      process.execPath,
      fixture('conduct-echo-agent.mjs'),
    ]);
    conductor = c;
    c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2, clientCapabilities: {} } });
    expect((await c.until((m) => m.id === 1)).result.protocolVersion).toBe(2);
    const payloads = ['{ "n" : 12345678901234567890, "x": 1e400 }', '[ 0.10000000000000000001 ,{"t":"a\\u00e9\\"}"} ]'];
    for (let k = 0; k < 20; k++) {
      const p = payloads[k % 2] ?? '';
      c.write(`{"params":${p},  "method":"_test/say","jsonrpc":"2.0"}\n`);
      if (k === 10) c.send({ jsonrpc: '2.0', id: 2, method: '_test/unknown', params: {} });
    }
    c.write('{"jsonrpc":"2.0","method":"_test/last"}\n');
    // every line the editor side gets, until the agent's echo of the last notification and the answer to id 2
    const lines: string[] = [];
    const done = (): boolean => lines.some((l) => l.includes('_test/last')) && lines.some((l) => l.includes('"id":2'));
    while (!done()) lines.push(await c.line());
    const said = lines.filter((l) => l.includes('"_test/said"'));
    expect(said).toEqual(
      Array.from({ length: 20 }, (_, k) => `{"jsonrpc":"2.0","method":"_test/said","params":${payloads[k % 2] ?? ''}}`),
    );
    // the agent read the last notification plain, as the peer would have written it, after all the others
    const echo = lines.find((l) => l.includes('_test/echo')) ?? '';
    expect((JSON.parse(echo) as { params: { line: string } }).params.line).toBe(
      '{"jsonrpc":"2.0","method":"_test/last"}',
    );
    expect(lines.indexOf(echo)).toBeGreaterThan(lines.indexOf(said[19] ?? ''));
    const answer = JSON.parse(lines.find((l) => l.includes('"id":2')) ?? '{}') as { error?: { code: number } };
    expect(answer.error?.code).toBe(-32601);
  });
});

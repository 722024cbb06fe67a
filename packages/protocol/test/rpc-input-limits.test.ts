// Input limits of the JSON-RPC peer over a real pipe (issue 7.14 input part, 7.16 batch part (now issue 23.5),
// 7.20 ids part): nesting depth, batches of any size (accepted up to MAX_BATCH_ENTRIES, refused whole above),
// and integer ids beyond 2^53 kept exact.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_BATCH_ENTRIES, MAX_JSON_DEPTH } from '../src/rpc/index.js';
import { RawChild, fixture } from '../../../test/support/raw-child.js';

/** rpc-echo.mjs (built from dist/) spoken to with raw lines; answers are read as raw lines too. */
class RawLines extends RawChild {
  constructor() {
    super(fixture('rpc-echo.mjs'));
  }
  writeLine(line: string): void {
    this.write(line + '\n');
  }
  async json(): Promise<any> {
    return JSON.parse(await this.line(10_000));
  }
}

const children: RawLines[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.child.kill('SIGKILL');
});
function start(): RawLines {
  const c = new RawLines();
  children.push(c);
  return c;
}
// One child for the tests that only need answers to what they send (each reads all of them): a
// node process per test costs more CPU than its exchanges. The problems test keeps its own child,
// since it reads the child's whole problem list.
let sharedChild: RawLines | undefined;
function shared(): RawLines {
  sharedChild ??= new RawLines();
  return sharedChild;
}
afterAll(() => {
  sharedChild?.child.kill('SIGKILL');
  sharedChild = undefined;
});

/** The one answer to a batch over the limit (ACP-V2-TRANS-11), as written on the wire. */
const OVER_LIMIT = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a batch of 2000 entries is over the limit of ${MAX_BATCH_ENTRIES}: send at most ${MAX_BATCH_ENTRIES} per array, or one JSON-RPC object per line"}}`;

/** `{"jsonrpc":"2.0","id":ID,"method":"echo","params":P}` where the whole message nests `depth` levels. */
function echoNested(id: number, depth: number): string {
  // the envelope is level 1; params adds depth - 1 levels of arrays
  const inner = depth - 1;
  return `{"jsonrpc":"2.0","id":${id},"method":"echo","params":${'['.repeat(inner)}${']'.repeat(inner)}}`;
}

describe('nesting depth of incoming messages', () => {
  it(`answers a request nested deeper than ${MAX_JSON_DEPTH} levels with -32602 naming the limit, and serves one at the limit`, async () => {
    const c = shared();
    c.writeLine(echoNested(1, MAX_JSON_DEPTH));
    const ok = await c.json();
    expect(ok.id).toBe(1);
    expect(Array.isArray(ok.result)).toBe(true);

    c.writeLine(echoNested(2, MAX_JSON_DEPTH + 1));
    const refused = await c.json();
    expect(refused).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: `Invalid params: the message is nested deeper than ${MAX_JSON_DEPTH} levels (the limit for incoming JSON); send shallower params`,
        data: { maxDepth: MAX_JSON_DEPTH },
      },
    });

    // hostile depth: never a stack overflow (-32603) and the peer keeps serving
    c.writeLine(echoNested(3, 200_000));
    expect((await c.json()).error.code).toBe(-32602);
    c.writeLine('{"jsonrpc":"2.0","id":4,"method":"echo","params":"still here"}');
    expect(await c.json()).toEqual({ jsonrpc: '2.0', id: 4, result: 'still here' });
  });

  it('reports a too-deep notification as a problem before answering the request sent after it, and never hands it to a handler', async () => {
    const c = start();
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    c.writeLine(`{"jsonrpc":"2.0","method":"tick","params":${deep}}`);
    // a batch with a too-deep entry: the whole line is too deep, so each request gets -32602 (one array), nothing runs
    c.writeLine(
      `[{"jsonrpc":"2.0","id":"a","method":"echo","params":1},{"jsonrpc":"2.0","id":"b","method":"echo","params":${deep}}]`,
    );
    expect((await c.json()).map((r: { id: string; error: { code: number } }) => [r.id, r.error.code])).toEqual([
      ['a', -32602],
      ['b', -32602],
    ]);
    c.writeLine('{"jsonrpc":"2.0","id":5,"method":"problems"}');
    expect(await c.json()).toEqual({ jsonrpc: '2.0', id: 5, result: ['invalid-message'] });
  });
});

describe(`batches of any size (ACP-V2-TRANS-11; at most MAX_BATCH_ENTRIES = ${MAX_BATCH_ENTRIES})`, () => {
  const entries = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'echo', params: i }));

  it('answers batches of 1, 100 and 1,000 requests with one array each; refuses 2,000 whole and runs none of it', async () => {
    const c = shared();
    for (const n of [1, 100, MAX_BATCH_ENTRIES, 2000]) c.writeLine(JSON.stringify(entries(n)));
    c.writeLine('{"jsonrpc":"2.0","id":"after","method":"echo","params":"next"}');
    for (const n of [1, 100, MAX_BATCH_ENTRIES])
      expect(await c.json()).toEqual(entries(n).map((e) => ({ jsonrpc: '2.0', id: e.id, result: e.params })));
    // had any of the 2,000 run, its answer would come before "after"
    expect(await c.line()).toBe(OVER_LIMIT);
    expect(await c.json()).toEqual({ jsonrpc: '2.0', id: 'after', result: 'next' });
  });
});

describe('integer ids beyond 2^53 (ACP-ALL-RPC-03: the id is echoed unchanged)', () => {
  it('echoes the exact digits of a large integer id (single, negative, and inside a batch)', async () => {
    const c = shared();
    c.writeLine('{"jsonrpc":"2.0","id":9007199254740993,"method":"echo","params":"big"}');
    expect(await c.line()).toBe('{"jsonrpc":"2.0","id":9007199254740993,"result":"big"}');
    c.writeLine('{"jsonrpc":"2.0", "id" : -123456789012345678901234567890,"method":"echo","params":{"id":1}}');
    expect(await c.line()).toBe('{"jsonrpc":"2.0","id":-123456789012345678901234567890,"result":{"id":1}}');
    c.writeLine(
      '[{"jsonrpc":"2.0","id":1,"method":"echo","params":"x"},{"method":"echo","params":{"id":2},"jsonrpc":"2.0","id":18446744073709551615}]',
    );
    expect(await c.line()).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"x"},{"jsonrpc":"2.0","id":18446744073709551615,"result":{"id":2}}]',
    );
    // an error reply keeps the exact id too
    c.writeLine('{"jsonrpc":"2.0","id":90071992547409931,"method":"nope"}');
    expect(await c.line()).toMatch(/^\{"jsonrpc":"2\.0","id":90071992547409931,"error":\{"code":-32601,/);
  });

  it('$/cancel_request naming a large id cancels that request, answered with its exact id', async () => {
    const c = shared();
    c.writeLine('{"jsonrpc":"2.0","id":9007199254740993,"method":"sleep","params":{"ms":60000}}');
    c.writeLine('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":9007199254740993}}');
    expect(await c.line()).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740993,"error":\{"code":-32800,/);
  });
});

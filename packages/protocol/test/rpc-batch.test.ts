// JSON-RPC 2.0 batches are accepted on every connection, never sent (ACP-V2-TRANS-11): the entries
// run like single messages, the replies go back as one array (ids echoed, any order, notifications
// and responses unanswered), invalid entries get -32600 `id: null` each, an empty array gets one
// -32600 object, an array over MAX_BATCH_ENTRIES is refused whole, and the connection stays usable.
// The cases marked with an acp-tck test id encode that public kit's batch tests
// (agentclientprotocol/acp-tck, src/tck/v2/conformance/test_batch.py) exactly: same input, same check.
// "Nothing came back" is always proved with a round trip, never with a sleep.
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  JsonRpcPeer,
  MAX_BATCH_ENTRIES,
  MAX_JSON_DEPTH,
  StreamTransport,
  type ProtocolProblem,
} from '../src/rpc/index.js';
import { jsonLines } from '../../../test/support/json-lines.js';
import { fixture, RawChild } from '../../../test/support/raw-child.js';
import { startE2EServer, TOKEN, wsUrl } from '../../../test/support/remote.js';

const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const EMPTY = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message: 'Invalid request: an empty JSON array is not a batch: a batch needs at least one JSON-RPC message',
  },
};
const invalidEntry = (what: string) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: `Invalid request: expected a JSON object, got ${what}` },
});

/** A real peer on in-memory pipes, spoken to with raw lines; records what its handlers ran. */
function rawPeer() {
  const toPeer = new PassThrough();
  const fromPeer = new PassThrough();
  const problems: ProtocolProblem[] = [];
  const peer = new JsonRpcPeer(new StreamTransport(toPeer, fromPeer), { onProblem: (p) => problems.push(p) });
  cleanup.push(() => peer.close());
  const ran: string[] = [];
  peer.onRequest('echo', (p) => {
    ran.push(`echo ${String(p)}`);
    return p;
  });
  peer.onRequest('slow', (p) => new Promise((r) => setTimeout(() => r(p), 30)));
  peer.onNotification('note', (p) => void ran.push(`note ${String(p)}`));
  const lines = jsonLines(fromPeer);
  let probe = 0;
  return {
    peer,
    problems,
    ran,
    lines,
    write: (line: string) => toPeer.write(line + '\n'),
    /** Sends a single echo request; returns every line written before its answer. */
    async roundTrip(): Promise<any[]> {
      const id = `probe-${++probe}`;
      toPeer.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: id }) + '\n');
      const out = await lines.until((m) => !Array.isArray(m) && m?.id === id);
      expect(out.at(-1)).toEqual({ jsonrpc: '2.0', id, result: id });
      return out.slice(0, -1);
    },
  };
}

const req = (id: number | string, params: unknown = id, method = 'echo') => ({ jsonrpc: '2.0', id, method, params });
const note = (params: unknown) => ({ jsonrpc: '2.0', method: 'note', params });
const byId = (replies: any[]) => new Map(replies.map((r) => [r.id, r]));

describe('the peer accepts JSON-RPC 2.0 batches (ACP-V2-TRANS-11)', () => {
  it('requests in a batch: one array back with every id echoed; the entries ran in order', async () => {
    const p = rawPeer();
    p.write(JSON.stringify([req('a'), note('n'), req(2, 'two'), req('s', 'slow', 'slow')]));
    // the slow entry answers last, so the array is written only once all three are known
    const [reply] = await p.lines.until((m) => Array.isArray(m));
    expect(Array.isArray(reply)).toBe(true);
    expect(reply).toHaveLength(3);
    expect(byId(reply)).toEqual(
      new Map<unknown, unknown>([
        ['a', { jsonrpc: '2.0', id: 'a', result: 'a' }],
        [2, { jsonrpc: '2.0', id: 2, result: 'two' }],
        ['s', { jsonrpc: '2.0', id: 's', result: 'slow' }],
      ]),
    );
    expect(p.ran).toEqual(['echo a', 'note n', 'echo two']);
  });

  it('a batch of notifications only gets no reply at all, not even an empty array', async () => {
    const p = rawPeer();
    p.write(JSON.stringify([note(1), note(2)]));
    expect(await p.roundTrip()).toEqual([]);
    expect(p.ran).toEqual(['note 1', 'note 2', 'echo probe-1']);
  });

  it('an empty array is one -32600 object with id null (not an array); the next message is served', async () => {
    const p = rawPeer();
    p.write('[]');
    expect(await p.roundTrip()).toEqual([EMPTY]);
    expect(p.problems.map((x) => x.kind)).toEqual(['invalid-message']);
  });

  it('invalid entries get -32600 with id null each, in the one array; valid ones beside them run', async () => {
    const p = rawPeer();
    p.write(JSON.stringify([17, req('ok'), [req('nested')], { jsonrpc: '2.0', id: 9, method: 'missing' }]));
    const [reply] = await p.roundTrip();
    expect(reply).toHaveLength(4);
    expect(reply.filter((r: any) => r.id === null)).toEqual([invalidEntry('number 17'), invalidEntry('an array')]);
    expect(byId(reply).get('ok')).toEqual({ jsonrpc: '2.0', id: 'ok', result: 'ok' });
    expect(byId(reply).get(9)).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32601, message: 'Method not found: missing', data: { method: 'missing' } },
    });
    // an array inside a batch is one invalid entry: its request never ran
    expect(p.ran).toEqual(['echo ok', 'echo probe-1']);
  });

  it('a response inside a batch settles the request it answers (and is itself not answered)', async () => {
    const p = rawPeer();
    const answer = p.peer.request('ask');
    const [sent] = await p.lines.until((m) => m?.method === 'ask');
    p.write(JSON.stringify([{ jsonrpc: '2.0', id: sent.id, result: 'from-batch' }, note('x')]));
    expect(await answer).toBe('from-batch');
    expect(await p.roundTrip()).toEqual([]);
  });

  it('nothing after a batch overtakes its entries, even behind a slow notification handler', async () => {
    const p = rawPeer();
    let release!: () => void;
    p.peer.onNotification('hold', () => new Promise<void>((r) => (release = r)));
    p.write(JSON.stringify([{ jsonrpc: '2.0', method: 'hold' }, note('in-batch')]));
    p.write(JSON.stringify(note('after')));
    const done = p.roundTrip();
    await new Promise((r) => setImmediate(r));
    expect(p.ran).toEqual([]);
    release();
    expect(await done).toEqual([]);
    expect(p.ran).toEqual(['note in-batch', 'note after', 'echo probe-1']);
  });

  it(`an array of more than ${MAX_BATCH_ENTRIES} entries is refused whole with one -32600 naming the limit; none of it runs`, async () => {
    const p = rawPeer();
    p.write(JSON.stringify(Array.from({ length: MAX_BATCH_ENTRIES + 1 }, (_, i) => req(i))));
    expect(await p.roundTrip()).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid request: a batch of ${MAX_BATCH_ENTRIES + 1} entries is over the limit of ${MAX_BATCH_ENTRIES}: send at most ${MAX_BATCH_ENTRIES} per array, or one JSON-RPC object per line`,
        },
      },
    ]);
    expect(p.ran).toEqual(['echo probe-1']);
    // exactly at the limit is a batch
    p.write(JSON.stringify(Array.from({ length: MAX_BATCH_ENTRIES }, (_, i) => req(i))));
    const [reply] = await p.roundTrip();
    expect(reply).toHaveLength(MAX_BATCH_ENTRIES);
  });

  it('a result JSON cannot carry gets -32603 for that entry only; the rest of the array goes out', async () => {
    const p = rawPeer();
    p.peer.onRequest('bad', () => ({ n: 1n }));
    p.write(JSON.stringify([req('good'), { jsonrpc: '2.0', id: 'bad', method: 'bad' }]));
    const [reply] = await p.roundTrip();
    expect(byId(reply).get('good')).toEqual({ jsonrpc: '2.0', id: 'good', result: 'good' });
    expect(byId(reply).get('bad').error.code).toBe(-32603);
  });

  it(`a batch nested deeper than ${MAX_JSON_DEPTH} levels: each request gets its -32602 in one array, none runs`, async () => {
    const p = rawPeer();
    const deep = '['.repeat(500) + ']'.repeat(500);
    p.write(
      `[${JSON.stringify(req('a'))},{"jsonrpc":"2.0","id":"b","method":"echo","params":${deep}},{"jsonrpc":"2.0","method":"note","params":${deep}}]`,
    );
    const [reply] = await p.roundTrip();
    expect(reply.map((r: any) => [r.id, r.error.code])).toEqual([
      ['a', -32602],
      ['b', -32602],
    ]);
    expect(p.ran).toEqual(['echo probe-1']);
  });

  it('the peer never sends a batch of its own: requests and notifications go out one object per line', async () => {
    const p = rawPeer();
    void p.peer.request('one').catch(() => undefined);
    p.peer.notify('two');
    void p.peer.request('three').catch(() => undefined);
    const out = await p.lines.until((m) => m?.method === 'three');
    expect(out.map((m) => m.method)).toEqual(['one', 'two', 'three']);
  });

  it('over a real pipe to another process: a batch is answered as one array line and the process keeps serving', async () => {
    const c = new RawChild(fixture('rpc-echo.mjs'));
    cleanup.push(() => c.kill());
    c.send([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: 'x' },
      { jsonrpc: '2.0', id: 2, method: 'sleep', params: { ms: 1 } },
    ]);
    const reply = JSON.parse(await c.line());
    expect(byId(reply)).toEqual(
      new Map<unknown, unknown>([
        [1, { jsonrpc: '2.0', id: 1, result: 'x' }],
        [2, { jsonrpc: '2.0', id: 2, result: 'slept' }],
      ]),
    );
    c.send({ jsonrpc: '2.0', id: 'after', method: 'echo', params: 'after' });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'after', result: 'after' });
  });
});

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));

/** `acp-kit agent` as a real process, initialized at `version` (what the kit's `v2_only_agent` does). */
async function startAgent(version: 1 | 2): Promise<RawChild> {
  const c = new RawChild(BIN, ['agent']);
  cleanup.push(() => c.kill());
  const init =
    version === 2
      ? { protocolVersion: 2, info: { name: 'tck-like', version: '1' }, capabilities: {} }
      : { protocolVersion: 1, clientCapabilities: {} };
  c.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init });
  const r = await c.until((m) => m?.id === 0);
  expect(r.result.protocolVersion).toBe(version);
  return c;
}

describe.each([1, 2] as const)("`acp-kit agent` at protocol v%i answers the public kit's batch probes", (version) => {
  it('acp-tck test_empty_batch_yields_a_single_invalid_request_object: `[]` -> one -32600 object, id null', async () => {
    const c = await startAgent(version);
    c.write('[]\n');
    const msg = await c.next();
    expect(Array.isArray(msg)).toBe(false);
    expect(msg).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('acp-tck test_notification_only_batch_gets_no_reply: no reply to [_tck/notify_only]', async () => {
    const c = await startAgent(version);
    c.send([{ jsonrpc: '2.0', method: '_tck/notify_only' }]);
    // the next line must be the answer to this probe, so nothing was written for the batch
    c.send({ jsonrpc: '2.0', id: 'probe', method: 'session/list' });
    expect(await c.next()).toMatchObject({ id: 'probe', result: { sessions: expect.any(Array) } });
  });

  it('acp-tck test_invalid_batch_entries_get_per_entry_invalid_request: [17, true, null] -> 3 x -32600 id null; session/list still served', async () => {
    const c = await startAgent(version);
    c.send([17, true, null]);
    const reply = (await c.next()) as any[];
    expect(reply).toHaveLength(3);
    for (const r of reply) expect(r).toMatchObject({ id: null, error: { code: -32600 } });
    c.send({ jsonrpc: '2.0', id: 'follow-up', method: 'session/list' });
    expect(await c.next()).toMatchObject({ id: 'follow-up', result: { sessions: expect.any(Array) } });
  });

  it('acp-tck test_batch_of_requests_replies_with_matching_responses: two session/list -> one array, ids echoed, both results', async () => {
    const c = await startAgent(version);
    c.send([
      { jsonrpc: '2.0', id: 'tck-batch-a', method: 'session/list' },
      { jsonrpc: '2.0', id: 'tck-batch-b', method: 'session/list' },
    ]);
    const reply = (await c.next()) as any[];
    expect(Array.isArray(reply) && reply.length).toBe(2);
    const ids = byId(reply);
    for (const id of ['tck-batch-a', 'tck-batch-b']) expect(ids.get(id)).toHaveProperty('result');
  });
});

describe('remote transports: the WebSocket accepts batches, a Streamable HTTP POST of an array gets 501 (the remote-transport RFD)', () => {
  const INIT = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} },
  };

  it('WebSocket: two session/list in one text frame -> one frame holding both answers; a notification-only batch gets none', async () => {
    const server = await startE2EServer();
    cleanup.push(() => server.close(1000));
    const ws = new WebSocket(wsUrl(server), { headers: { authorization: `Bearer ${TOKEN}` } });
    cleanup.push(() => ws.terminate());
    const frames: unknown[] = [];
    const waiters: Array<() => void> = [];
    ws.on('message', (d) => {
      frames.push(JSON.parse(d.toString()));
      waiters.splice(0).forEach((w) => w());
    });
    const next = async () => {
      while (frames.length === 0) await new Promise<void>((r) => waiters.push(r));
      return frames.shift() as any;
    };
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify(INIT));
    expect((await next()).result.protocolVersion).toBe(2);
    ws.send(JSON.stringify([{ jsonrpc: '2.0', method: '_tck/notify_only' }]));
    ws.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'session/list' },
        { jsonrpc: '2.0', id: 'b', method: 'session/list' },
      ]),
    );
    const reply = await next();
    expect(Array.isArray(reply)).toBe(true);
    expect(reply.map((r: any) => r.id).sort()).toEqual(['a', 'b']);
    for (const r of reply) expect(r.result.sessions).toEqual(expect.any(Array));
  });

  it('Streamable HTTP: an array POST is 501 with a -32600 body saying to send one message per POST', async () => {
    const server = await startE2EServer();
    cleanup.push(() => server.close(1000));
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const init = await post(INIT);
    const id = init.headers.get('acp-connection-id') ?? '';
    const r = await post([{ jsonrpc: '2.0', id: 1, method: 'session/list' }], { 'acp-connection-id': id });
    expect(r.status).toBe(501);
    expect(await r.json()).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('one JSON-RPC message per POST') },
    });
  });
});

// ACP has no JSON-RPC batches in any version (ACP-V2-TRANS-11): a JSON array, empty or not, of any
// size or depth, is one invalid message. The peer answers it with exactly one -32600 `id: null`
// saying what to send instead, runs none of its entries, reports it as a problem, and keeps serving.
// "None ran" is proved with a round trip: a single request written after the array is answered,
// and by then the handlers' counters still show only that request.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore, serveAgent, silentLogger, type AgentDefinition } from '../src/agent/index.js';
import { JsonRpcPeer, MAX_JSON_DEPTH, StreamTransport, type ProtocolProblem } from '../src/rpc/index.js';
import { jsonLines } from './support/json-lines.js';
import { fixture, RawChild } from './support/raw-child.js';

const REFUSAL = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Invalid request: a JSON array (batch) is not an ACP message: send one JSON-RPC object per line' },
};

const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A real peer on in-memory pipes, spoken to with raw lines; counts what its handlers ran. */
function rawPeer() {
  const toPeer = new PassThrough();
  const fromPeer = new PassThrough();
  const problems: ProtocolProblem[] = [];
  const peer = new JsonRpcPeer(new StreamTransport(toPeer, fromPeer), { onProblem: (p) => problems.push(p) });
  cleanup.push(() => peer.close());
  const ran = { requests: [] as unknown[], notifications: [] as unknown[] };
  peer.onRequest('echo', (p) => {
    ran.requests.push(p);
    return p;
  });
  peer.onNotification('note', (p) => void ran.notifications.push(p));
  const lines = jsonLines(fromPeer);
  let probe = 0;
  return {
    peer,
    problems,
    ran,
    write: (line: string) => toPeer.write(line + '\n'),
    /** Sends a single echo request and returns every line written up to and including its answer. */
    async roundTrip(): Promise<any[]> {
      const id = `probe-${++probe}`;
      toPeer.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: id }) + '\n');
      const out = await lines.until((m) => !Array.isArray(m) && m?.id === id);
      expect(out.at(-1)).toEqual({ jsonrpc: '2.0', id, result: id });
      return out.slice(0, -1);
    },
  };
}

const req = (id: number | string, params: unknown = id) => ({ jsonrpc: '2.0', id, method: 'echo', params });
const note = (params: unknown) => ({ jsonrpc: '2.0', method: 'note', params });

describe('a JSON array is not an ACP message (ACP-V2-TRANS-11)', () => {
  const arrays: Array<[string, unknown[]]> = [
    ['an empty array', []],
    ['one request', [req(1)]],
    ['one notification', [note(1)]],
    ['requests, a notification and junk', [req(1), note(2), req(3), 7, { jsonrpc: '2.0', id: 4, method: 'missing' }]],
    ['an array inside an array', [[req(1)], req(2)]],
    ['500 requests', Array.from({ length: 500 }, (_, i) => req(i))],
  ];
  it.each(arrays)('%s: one -32600 id null, none of it runs, reported as a problem; the peer keeps serving', async (_name, array) => {
    const p = rawPeer();
    p.write(JSON.stringify(array));
    const before = await p.roundTrip();
    expect(before).toEqual([REFUSAL]);
    expect(p.ran.requests).toEqual(['probe-1']);
    expect(p.ran.notifications).toEqual([]);
    expect(p.problems).toEqual([{ kind: 'invalid-message', message: `refused a JSON array of ${array.length} entries: ACP has no JSON-RPC batches`, detail: undefined }]);
    // and the next array gets the same single answer: nothing about the first one lingers
    p.write(JSON.stringify(array));
    p.write(JSON.stringify(note('after')));
    expect(await p.roundTrip()).toEqual([REFUSAL]);
    expect(p.ran.requests).toEqual(['probe-1', 'probe-2']);
    expect(p.ran.notifications).toEqual(['after']);
  });

  it('answers each array in arrival order, between the answers to the single messages around it', async () => {
    const p = rawPeer();
    p.write(JSON.stringify(req('a')));
    p.write(JSON.stringify([req('b')]));
    p.write(JSON.stringify(req('c')));
    p.write('[]');
    expect(await p.roundTrip()).toEqual([{ jsonrpc: '2.0', id: 'a', result: 'a' }, REFUSAL, { jsonrpc: '2.0', id: 'c', result: 'c' }, REFUSAL]);
    expect(p.ran.requests).toEqual(['a', 'c', 'probe-1']);
  });

  it('a response inside an array does not settle the request it names', async () => {
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const peer = new JsonRpcPeer(new StreamTransport(toPeer, fromPeer));
    cleanup.push(() => peer.close());
    peer.onRequest('echo', (p) => p);
    const lines = jsonLines(fromPeer);
    let settled: unknown;
    const answer = peer.request('ask').then((v) => (settled = v));
    const [sent] = await lines.until((m) => m?.method === 'ask');
    toPeer.write(JSON.stringify([{ jsonrpc: '2.0', id: sent.id, result: 'from-array' }]) + '\n');
    toPeer.write(JSON.stringify(req('probe')) + '\n');
    expect(await lines.until((m) => m?.id === 'probe')).toEqual([REFUSAL, { jsonrpc: '2.0', id: 'probe', result: 'probe' }]);
    expect(settled).toBeUndefined();
    // the real answer, sent as one object, still settles it
    toPeer.write(JSON.stringify({ jsonrpc: '2.0', id: sent.id, result: 'single' }) + '\n');
    await answer;
    expect(settled).toBe('single');
  });

  it(`an array nested deeper than ${MAX_JSON_DEPTH} levels gets the same one answer (no crash, nothing runs)`, async () => {
    const p = rawPeer();
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    p.write(`[${JSON.stringify(req('a'))},{"jsonrpc":"2.0","id":"b","method":"echo","params":${deep}}]`);
    p.write(deep);
    p.write('['.repeat(200_000) + ']'.repeat(200_000));
    expect(await p.roundTrip()).toEqual([REFUSAL, REFUSAL, REFUSAL]);
    expect(p.ran.requests).toEqual(['probe-1']);
    expect(p.problems.map((x) => x.message)).toEqual([
      'refused a JSON array of 2 entries: ACP has no JSON-RPC batches',
      'refused a JSON array of 1 entries: ACP has no JSON-RPC batches',
      'refused a JSON array of 1 entries: ACP has no JSON-RPC batches',
    ]);
  });

  it('over a real pipe to another process: a 2,000-request array is one error, no work starts, and the process keeps serving', async () => {
    const c = new RawChild(fixture('rpc-echo.mjs'));
    cleanup.push(() => c.kill());
    const sleeps = Array.from({ length: 2000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'sleep', params: { ms: 60_000 } }));
    c.send(sleeps);
    c.send([{ jsonrpc: '2.0', id: 'x', method: 'echo', params: 'x' }]);
    c.send({ jsonrpc: '2.0', id: 'after', method: 'problems' });
    expect(await c.line()).toBe(JSON.stringify(REFUSAL));
    expect(await c.line()).toBe(JSON.stringify(REFUSAL));
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'after', result: ['invalid-message', 'invalid-message'] });
    // had the array's `sleep` id 0 started, this cancel would make it answer -32800 before the echo below
    c.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 0 } });
    c.send({ jsonrpc: '2.0', id: 0, method: 'echo', params: 'zero' });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 0, result: 'zero' });
    expect(c.alive).toBe(true);
  });
});

describe('the agent runtime refuses arrays the same way in v1 and v2', () => {
  const agentDef: AgentDefinition = { info: { name: 'nobatch', version: '0' }, prompt: async () => 'end_turn' };
  for (const version of [1, 2] as const) {
    it(`v${version}: session/new inside an array creates no session; the connection keeps working`, async () => {
      const toAgent = new PassThrough();
      const toClient = new PassThrough();
      const conn = serveAgent(agentDef, new StreamTransport(toAgent, toClient), { store: new InMemorySessionStore(), logger: silentLogger });
      cleanup.push(() => conn.close());
      const lines = jsonLines(toClient);
      const write = (m: unknown) => toAgent.write(JSON.stringify(m) + '\n');
      const init = version === 2
        ? { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} }
        : { protocolVersion: 1, clientCapabilities: {} };
      write({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init });
      expect((await lines.until((m) => m.id === 0))[0].result.protocolVersion).toBe(version);

      write([{ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }]);
      write({ jsonrpc: '2.0', id: 2, method: 'session/list' });
      expect(await lines.until((m) => m.id === 2)).toEqual([REFUSAL, { jsonrpc: '2.0', id: 2, result: { sessions: [] } }]);
    });
  }
});

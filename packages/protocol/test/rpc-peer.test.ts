import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AcpError } from '../src/index.js';
import {
  ConnectionClosedError,
  JsonRpcPeer,
  spawnAgent,
  StreamTransport,
  type ProtocolProblem,
} from '../src/rpc/index.js';
import { fixture, RawChild } from '../../../test/support/raw-child.js';
import { alive } from '../../../test/support/process.js';

function pair() {
  const a2b = new PassThrough();
  const b2a = new PassThrough();
  const a = new JsonRpcPeer(new StreamTransport(b2a, a2b));
  const b = new JsonRpcPeer(new StreamTransport(a2b, b2a));
  return { a, b };
}

const cleanup: Array<() => void> = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

// One echo agent for the tests that only talk to it (a node process per test costs more CPU than
// their exchanges); tests that end or crash the agent start their own.
let sharedChild: { peer: JsonRpcPeer; problems: ProtocolProblem[]; kill: () => Promise<void> } | undefined;
function sharedEcho() {
  if (!sharedChild) {
    const problems: ProtocolProblem[] = [];
    const { agent, peer } = spawnEcho(problems);
    sharedChild = { peer, problems, kill: () => agent.kill() };
  }
  return sharedChild;
}
let sharedRaw: RawChild | undefined;
function rawEcho(): RawChild {
  sharedRaw ??= new RawChild(fixture('rpc-echo.mjs'));
  return sharedRaw;
}
afterAll(async () => {
  sharedRaw?.kill();
  sharedRaw = undefined;
  await sharedChild?.kill();
  sharedChild = undefined;
});

function spawnEcho(problems: ProtocolProblem[]) {
  const agent = spawnAgent(process.execPath, [fixture('rpc-echo.mjs')]);
  const peer = new JsonRpcPeer(agent.transport, { answerParseErrors: false, onProblem: (p) => problems.push(p) });
  return { agent, peer };
}

function child(problems: ProtocolProblem[] = []) {
  const { agent, peer } = spawnEcho(problems);
  cleanup.push(() => void agent.kill());
  return { agent, peer };
}

describe('JsonRpcPeer in process', () => {
  it('round-trips requests, notifications and errors both ways (ACP-ALL-RPC-01..05)', async () => {
    const { a, b } = pair();
    const seen: unknown[] = [];
    b.onRequest('add', (p) => (p as { x: number }).x + 1);
    b.onNotification('note', (p) => void seen.push(p));
    a.onRequest('fail', () => {
      throw AcpError.invalidParams('params.x: must be number');
    });
    a.onRequest('boom', () => {
      throw new TypeError('cannot read properties of undefined (reading "x")');
    });
    expect(await a.request('add', { x: 41 })).toBe(42);
    a.notify('note', { n: 1 });
    await expect(b.request('fail', {})).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid params: params.x: must be number',
    });
    // a plain exception is not an opaque -32603: the cause is in the message
    await expect(b.request('boom')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('cannot read properties of undefined'),
    });
    await expect(a.request('nope')).rejects.toMatchObject({ code: -32601, message: 'Method not found: nope' });
    expect(seen).toEqual([{ n: 1 }]);
  });

  it('never lets a handler see notification N+1 before N, and delivers a response after the notifications before it', async () => {
    const { a, b } = pair();
    const order: string[] = [];
    a.onNotification('tick', async (p) => {
      // uneven async work per notification: ordering must still hold
      const i = (p as { i: number }).i;
      if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
      order.push(`tick${i}`);
    });
    b.onRequest('go', () => {
      for (let i = 0; i < 200; i++) b.notify('tick', { i });
      return 'done';
    });
    const r = await a.request('go');
    order.push(String(r));
    expect(order).toEqual([...Array.from({ length: 200 }, (_, i) => `tick${i}`), 'done']);
  });

  it('wires $/cancel_request to the handler AbortSignal; the receiver still answers (ACP-ALL-CREQ-04)', async () => {
    const { a, b } = pair();
    let aborted = false;
    b.onRequest(
      'slow',
      (_p, ctx) =>
        new Promise((resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(ctx.signal.reason);
          });
          setTimeout(() => resolve('late'), 5000);
        }),
    );
    const ac = new AbortController();
    const p = a.request('slow', {}, { signal: ac.signal, onAbort: 'wait' });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ code: -32800 });
    expect(aborted).toBe(true);
  });

  it('rejects pending requests when the stream closes, saying so', async () => {
    const { a, b } = pair();
    let arrived!: () => void;
    const handling = new Promise<void>((r) => (arrived = r));
    b.onRequest('never', () => (arrived(), new Promise(() => undefined)));
    const p = a.request('never');
    await handling;
    b.close({ reason: 'peer went away' });
    await expect(p).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(p).rejects.toMatchObject({ message: expect.stringContaining('input stream ended') });
  });
});

describe('JsonRpcPeer over real stdio pipes', () => {
  it('survives a non-JSON stdout line from the agent and reports it', async () => {
    const { peer, problems } = sharedEcho();
    const before = problems.length;
    expect(await peer.request('junk')).toBe('ok');
    expect(await peer.request('echo', { still: 'alive' })).toEqual({ still: 'alive' });
    expect(problems.slice(before).map((p) => p.kind)).toContain('parse');
  });

  it('receives a 50 MB response line', async () => {
    const { peer } = sharedEcho();
    const s = await peer.request<string>('big', { bytes: 50 * 1024 * 1024 });
    expect(s.length).toBe(50 * 1024 * 1024);
    expect(await peer.request('echo', 1)).toBe(1);
  });

  it('sends a 20 MB request line and gets it back intact', async () => {
    const { peer } = sharedEcho();
    const big = 'é'.repeat(10 * 1024 * 1024);
    expect(await peer.request('echo', { big })).toEqual({ big });
  });

  it('rejects pending requests with the exit code and stderr tail when the agent dies', async () => {
    const { peer } = child();
    // the outcome is taken at once: the agent may die (and the request reject) before any later
    // await resumes, and a rejection nobody holds yet is an unhandled one
    const outcome = peer.request('sleep', { ms: 10_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    // answered after the sleep request arrived (one ordered pipe), so the sleep is in flight; the
    // agent then exits on a notification, with no answer of its own left to race its exit
    expect(await peer.request('echo', 1)).toBe(1);
    peer.notify('die', { code: 3 });
    const err = await outcome;
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as Error).message).toMatch(/exited with code 3/);
    expect((err as Error).message).toMatch(/fatal: simulated failure/);
    expect((err as ConnectionClosedError).info.exitCode).toBe(3);
  });

  it('handles requests from the agent while a client request is pending (symmetric peer)', async () => {
    const { peer } = sharedEcho();
    peer.onRequest('ping', (p) => ({ pong: p }));
    expect(await peer.request('askBack')).toEqual({ pong: { from: 'child' } });
  });

  it('leaves no process of the agent group behind, even one that ignores SIGTERM after the agent exited', async () => {
    const agent = spawnAgent(process.execPath, [fixture('rpc-stubborn-agent.mjs')], { killTimeoutMs: 300 });
    const peer = new JsonRpcPeer(agent.transport);
    cleanup.push(() => void agent.kill());
    const pid = await peer.request<number>('grandchild');
    expect(alive(pid)).toBe(true);
    peer.close();
    await agent.kill();
    const deadline = Date.now() + 3000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  });

  it('kills the agent process group when the connection is closed', async () => {
    const { agent, peer } = child();
    expect(await peer.request('echo', 1)).toBe(1);
    peer.close();
    const r = await agent.exited;
    expect(r.exitCode === 0 || r.signal === 'SIGTERM').toBe(true);
  });
});

describe('malformed input gets specific JSON-RPC errors and never kills the peer', () => {
  it('answers -32700, -32600, an empty array and a batch (ACP-V2-TRANS-11); then still serves', async () => {
    const c = rawEcho();
    c.write('not json at all\n');
    expect(await c.next()).toMatchObject({ id: null, error: { code: -32700 } });
    c.write('{"jsonrpc":"2.0","id":1,"method":"echo"'); // torn…
    c.write(',"params":[1]}\n'); // …and completed
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 1, result: [1] });
    c.send({ id: 2, method: 'echo' });
    expect(await c.next()).toMatchObject({
      id: 2,
      error: { code: -32600, message: expect.stringContaining('"jsonrpc" must be "2.0"') },
    });
    c.send({ jsonrpc: '2.0', id: { x: 1 }, method: 'echo' });
    expect(await c.next()).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('"id" must be') },
    });
    c.send({ jsonrpc: '2.0', id: 3, method: 42 });
    expect(await c.next()).toMatchObject({
      id: 3,
      error: { code: -32600, message: expect.stringContaining('"method" must be a string') },
    });
    c.send(42);
    expect(await c.next()).toMatchObject({ id: null, error: { code: -32600 } });
    // batches per JSON-RPC 2.0 (ACP-V2-TRANS-11): [] is one -32600 object, a batch one array of replies
    c.send([]);
    expect(await c.next()).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('empty JSON array') },
    });
    c.send([
      { jsonrpc: '2.0', id: 10, method: 'echo', params: 'a' },
      { jsonrpc: '2.0', method: 'note' },
      { jsonrpc: '2.0', id: 11, method: 'missing' },
      7,
    ]);
    expect(await c.next()).toEqual([
      { jsonrpc: '2.0', id: 10, result: 'a' },
      {
        jsonrpc: '2.0',
        id: 11,
        error: { code: -32601, message: 'Method not found: missing', data: { method: 'missing' } },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid request: expected a JSON object, got number 7' },
      },
    ]);
    c.send({ jsonrpc: '2.0', id: 99, method: 'echo', params: { ok: true } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 99, result: { ok: true } });
    expect(c.alive).toBe(true);
  });

  it('answers a cancelled request with -32800 and ignores unknown cancel ids', async () => {
    const c = rawEcho();
    c.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'nope' } });
    c.send({ jsonrpc: '2.0', id: 'a', method: 'sleep', params: { ms: 10_000 } });
    c.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'a' } });
    expect(await c.next()).toMatchObject({ id: 'a', error: { code: -32800 } });
  });
});

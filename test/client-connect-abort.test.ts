/** `ClientOptions.initializeTimeoutMs` and `signal`: giving up on an agent that does not answer `initialize`. */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { ConnectAbortedError, connect, type ClientConnection } from '../src/client/index.js';
import { alive } from './support/process.js';

const RAW = fileURLToPath(new URL('./fixtures/client-raw-agent.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('connect timeout and abort (ClientOptions.initializeTimeoutMs / signal)', () => {
  const MUTE = fileURLToPath(new URL('./fixtures/client-mute-agent.mjs', import.meta.url));
  /** The group was signalled before connect rejected; give the kernel a moment to finish the exits. */
  async function expectGone(pids: number[]): Promise<void> {
    expect(pids).toHaveLength(2);
    const end = Date.now() + 1000;
    while (pids.some(alive) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  }
  /** Connects to the mute agent; resolves with the rejection, the elapsed time and the pids it reported. */
  async function connectMute(opts: { initializeTimeoutMs?: number; signal?: AbortSignal }) {
    let stderr = '';
    const started = Date.now();
    const error = await connect({ command: process.execPath, args: [MUTE], onStderr: (t) => (stderr += t), ...opts }).then(
      (c) => (open.push(c), undefined),
      (e: unknown) => e,
    );
    const pids = (/pids (\d+) (\d+)/.exec(stderr) ?? []).slice(1).map(Number);
    return { error, elapsed: Date.now() - started, pids };
  }

  it('an agent that never answers initialize: rejects after the timeout, naming it and the command; no process left', async () => {
    const { error, elapsed, pids } = await connectMute({ initializeTimeoutMs: 400 });
    expect(error).toBeInstanceOf(ConnectAbortedError);
    const e = error as ConnectAbortedError;
    expect(e.reason).toBe('timeout');
    expect(e.timeoutMs).toBe(400);
    expect(e.message).toBe(`agent did not answer initialize within 400 ms (${process.execPath} ${MUTE})`);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(3000);
    // the agent and its grandchild (same process group) are gone
    await expectGone(pids);
  });

  it('formats whole seconds as seconds', () => {
    expect(new ConnectAbortedError('timeout', 'node agent.js', 60_000).message).toBe('agent did not answer initialize within 60 s (node agent.js)');
  });

  it('aborting the signal while waiting for initialize kills the agent and rejects with the reason as cause', async () => {
    const ac = new AbortController();
    const why = new Error('user pressed Ctrl-C');
    setTimeout(() => ac.abort(why), 300);
    const { error, elapsed, pids } = await connectMute({ signal: ac.signal, initializeTimeoutMs: 20_000 });
    expect(error).toBeInstanceOf(ConnectAbortedError);
    expect((error as ConnectAbortedError).reason).toBe('aborted');
    expect((error as ConnectAbortedError).cause).toBe(why);
    expect((error as Error).message).toMatch(/aborted before the agent answered initialize \(.*client-mute-agent\.mjs\)/);
    expect(elapsed).toBeLessThan(3000);
    await expectGone(pids);
  });

  it('an already aborted signal rejects without spawning anything', async () => {
    // a spawn would fail with "agent command not found" instead
    await expect(connect({ command: '/nonexistent/agent-binary', signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ConnectAbortedError);
  });

  it('a timely answer is unaffected; aborting after connect does not close the connection', async () => {
    const ac = new AbortController();
    const conn = await connect({ command: process.execPath, args: [RAW], initializeTimeoutMs: 10_000, signal: ac.signal });
    open.push(conn);
    ac.abort();
    const s = await conn.newSession({ cwd: '/w' });
    expect((await s.prompt('hello')).stopReason).toBe('end_turn');
  });

  it('rejects a bad initializeTimeoutMs before spawning', async () => {
    await expect(connect({ command: '/nonexistent/agent-binary', initializeTimeoutMs: 0 })).rejects.toThrow(/initializeTimeoutMs must be a positive number/);
    await expect(connect({ command: '/nonexistent/agent-binary', initializeTimeoutMs: Number.NaN })).rejects.toThrow(/initializeTimeoutMs/);
  });
});

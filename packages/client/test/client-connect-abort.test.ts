/** `ClientOptions.initializeTimeoutMs` and `signal`: giving up on an agent that does not answer `initialize`. */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { ConnectAbortedError, connect, type ClientConnection } from '../src/index.js';
import { alive, waitUntil } from '../../../test/support/process.js';
import { processWithMarkerAlive } from '../../../test/fixtures/cli-helpers.js';

const RAW = fileURLToPath(new URL('../../../test/fixtures/client-raw-agent.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('connect timeout and abort (ClientOptions.initializeTimeoutMs / signal)', () => {
  const MUTE = fileURLToPath(new URL('../../../test/fixtures/client-mute-agent.mjs', import.meta.url));
  /**
   * No process of the agent's group is left: the ones it reported, and any carrying the run's marker
   * argument (found through /proc, so this holds even when the agent was killed before reporting).
   * The group was signalled before connect rejected; the kernel may need a moment to finish the exits.
   */
  async function expectGone(pids: number[], marker: string): Promise<void> {
    await waitUntil(
      () => !pids.some(alive) && !processWithMarkerAlive(marker),
      10_000,
      `no process of ${marker} is left`,
    );
  }
  /**
   * Connects to the mute agent; resolves with the rejection, the elapsed time and the pids it reported.
   * `onStderr` sees the agent's stderr (`pids ...`, then `got <method>` per request it read).
   */
  async function connectMute(opts: {
    initializeTimeoutMs?: number;
    signal?: AbortSignal;
    onStderr?: (all: string) => void;
  }) {
    let stderr = '';
    const marker = `client-mute-agent-${process.pid}-${++runs}`;
    const started = Date.now();
    const error = await connect({
      command: process.execPath,
      args: [MUTE, marker],
      onStderr: (t) => {
        stderr += t;
        opts.onStderr?.(stderr);
      },
      initializeTimeoutMs: opts.initializeTimeoutMs,
      signal: opts.signal,
    }).then(
      (c) => (open.push(c), undefined),
      (e: unknown) => e,
    );
    const pids = (/pids (\d+) (\d+)/.exec(stderr) ?? []).slice(1).map(Number);
    return { error, elapsed: Date.now() - started, pids, marker, stderr };
  }
  let runs = 0;

  it('an agent that never answers initialize: rejects after the timeout, naming it and the command; no process left', async () => {
    const { error, elapsed, marker } = await connectMute({ initializeTimeoutMs: 400 });
    expect(error).toBeInstanceOf(ConnectAbortedError);
    const e = error as ConnectAbortedError;
    expect(e.reason).toBe('timeout');
    expect(e.timeoutMs).toBe(400);
    expect(e.message).toBe(`agent did not answer initialize within 400 ms (${process.execPath} ${MUTE} ${marker})`);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    // the agent and its grandchild (same process group) are gone, however far the agent got before the timeout
    await expectGone([], marker);
  });

  it('formats whole seconds as seconds', () => {
    expect(new ConnectAbortedError('timeout', 'node agent.js', 60_000).message).toBe(
      'agent did not answer initialize within 60 s (node agent.js)',
    );
  });

  it('aborting the signal while waiting for initialize kills the agent and rejects with the reason as cause', async () => {
    const ac = new AbortController();
    const why = new Error('user pressed Ctrl-C');
    // abort once the agent has read initialize (so connect is waiting for its answer), not after a guessed delay
    const { error, pids, marker, stderr } = await connectMute({
      signal: ac.signal,
      initializeTimeoutMs: 2 ** 31 - 1,
      onStderr: (all) => {
        if (/^got initialize$/m.test(all)) ac.abort(why);
      },
    });
    expect(stderr).toMatch(/^got initialize$/m);
    expect(error).toBeInstanceOf(ConnectAbortedError);
    expect((error as ConnectAbortedError).reason).toBe('aborted');
    expect((error as ConnectAbortedError).cause).toBe(why);
    expect((error as Error).message).toMatch(
      /aborted before the agent answered initialize \(.*client-mute-agent\.mjs .*\)/,
    );
    expect(pids).toHaveLength(2);
    await expectGone(pids, marker);
  });

  it('an already aborted signal rejects without spawning anything', async () => {
    // a spawn would fail with "agent command not found" instead
    await expect(connect({ command: '/nonexistent/agent-binary', signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      ConnectAbortedError,
    );
  });

  it('a timely answer is unaffected; aborting after connect does not close the connection', async () => {
    const ac = new AbortController();
    const conn = await connect({
      command: process.execPath,
      args: [RAW],
      initializeTimeoutMs: 10_000,
      signal: ac.signal,
    });
    open.push(conn);
    ac.abort();
    const s = await conn.newSession({ cwd: '/w' });
    expect((await s.prompt('hello')).stopReason).toBe('end_turn');
  });

  it('rejects a bad initializeTimeoutMs before spawning', async () => {
    await expect(connect({ command: '/nonexistent/agent-binary', initializeTimeoutMs: 0 })).rejects.toThrow(
      /initializeTimeoutMs must be a positive number/,
    );
    await expect(connect({ command: '/nonexistent/agent-binary', initializeTimeoutMs: Number.NaN })).rejects.toThrow(
      /initializeTimeoutMs/,
    );
  });
});

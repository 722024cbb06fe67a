// acpx 0.19.1 (npm devDependency; the headless client people drive agents with from scripts and CI)
// runs the built-in agent, `acp-kit agent`, as its agent, with acpx's own persistent sessions: `sessions
// new` opens one, each prompt afterwards goes to a background "queue owner" process that keeps the agent
// running and comes back to the session with `session/resume`; `sessions close` ends both. Real
// processes: acpx, its queue owner and the agent, in scratch HOME and cwd.
import { mkdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ndjson } from './fixtures/cli-helpers.js';
import { processesWithEnv, waitUntil } from './support/process.js';
import { runCommand } from './support/run-command.js';
import { tempDir } from './support/temp.js';

const ACPX = join(dirname(createRequire(import.meta.url).resolve('acpx/package.json')), 'dist/cli.js');
const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const home = realpathSync(tempDir('acp-kit-acpx-home-'));
const cwd = join(home, 'project');
mkdirSync(cwd);
// the agent's store lives under this HOME too; the marker finds every process of the run
const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ACPX_TEST_RUN: home };
const agent = `"${process.execPath}" "${BIN}" agent`;

const acpx = (...args: string[]) =>
  runCommand(process.execPath, [ACPX, '--agent', agent, ...args], { cwd, env, timeoutMs: 60_000 });

interface Frame {
  id?: number;
  method?: string;
  params?: { sessionId?: string };
  result?: { stopReason?: string; sessionId?: string };
  error?: unknown;
}

/** The answer to the first request of `method` in acpx's `--format json` stream (its JSON-RPC frames). */
function answerTo(frames: Frame[], method: string): Frame | undefined {
  const req = frames.find((f) => f.method === method && f.id !== undefined);
  return frames.find((f) => f.method === undefined && f.id === req?.id);
}

afterAll(async () => {
  // a failed test may leave the queue owner running: it must not outlive the suite
  for (const p of processesWithEnv('ACPX_TEST_RUN', home)) process.kill(p.pid, 'SIGKILL');
});

describe('acpx 0.19.1 drives acp-kit agent with persistent sessions', () => {
  it('sessions new, two prompts into that session (resumed once by the queue owner), sessions close', async () => {
    const created = await acpx('sessions', 'new');
    expect(created.status, created.stderr).toBe(0);
    const sessionId = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(sessionId).toMatch(/^sess_[0-9a-f]{32}$/);

    const first = await acpx('--approve-all', '--format', 'json', 'hello');
    expect(first.status, first.stderr).toBe(0);
    const frames1 = ndjson(first.stdout) as Frame[];
    // the queue owner started a fresh agent process and came back to the session acpx created
    expect(frames1.find((f) => f.method === 'session/resume')?.params?.sessionId).toBe(sessionId);
    expect(answerTo(frames1, 'session/resume')?.error).toBeUndefined();
    expect(frames1.find((f) => f.method === 'session/prompt')?.params?.sessionId).toBe(sessionId);
    expect(answerTo(frames1, 'session/prompt')?.result?.stopReason).toBe('end_turn');
    expect(frames1.some((f) => f.method === 'session/update' && f.params?.sessionId === sessionId)).toBe(true);

    // the second prompt reuses the running agent: no initialize, no resume, the same session
    const second = await acpx('--approve-all', '--format', 'json', 'hello again');
    expect(second.status, second.stderr).toBe(0);
    const frames2 = ndjson(second.stdout) as Frame[];
    expect(frames2.filter((f) => f.method === 'initialize' || f.method === 'session/resume')).toEqual([]);
    expect(frames2.find((f) => f.method === 'session/prompt')?.params?.sessionId).toBe(sessionId);
    expect(answerTo(frames2, 'session/prompt')?.result?.stopReason).toBe('end_turn');

    const closed = await acpx('sessions', 'close');
    expect(closed.status, closed.stderr).toBe(0);
    // the queue owner and the agent end with the session
    await waitUntil(() => processesWithEnv('ACPX_TEST_RUN', home).length === 0, 10_000, 'acpx and the agent exited');

    // the agent stored both turns; with its process gone the session's lock is free, and acp-kit's own
    // CLI replays them from the same HOME (while acpx held it open, it answered -32010: open elsewhere)
    const shown = await runCommand(
      process.execPath,
      [BIN, 'sessions', 'show', sessionId, '--protocol', '2', '--json'],
      {
        cwd,
        env,
        timeoutMs: 60_000,
      },
    );
    expect(shown.status, shown.stderr).toBe(0);
    const prompts = ndjson(shown.stdout).filter(
      (e) => (e.update as { sessionUpdate?: string } | undefined)?.sessionUpdate === 'user_message',
    );
    expect(prompts.map((e) => (e.update as { content: Array<{ text: string }> }).content[0]?.text)).toEqual([
      'hello',
      'hello again',
    ]);
  }, 120_000);
});

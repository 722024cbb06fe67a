/**
 * `acp-kit check client` with a client that ends at once without launching the agent, on both
 * versions (the default): a new user's `check client -- node examples/client.mjs --agent "{agent}"`
 * (the client runs in a scratch directory per case, where the relative `examples/client.mjs` does
 * not exist, so node exits 1 at once). Every case must be
 * reported as not run, with the reason, and the command must end; before, the first v2 case was
 * "not run" after the v1 failure and never opened its version gate, so the other v2 cases waited
 * for ever.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ClientCase } from '../src/checker/client/context.js';
import { runClientChecks } from '../src/checker/client/runner.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLIENT = fileURLToPath(new URL('../../../test/fixtures/checker/client.mjs', import.meta.url));

describe('check client: a client that never launches the agent', () => {
  it('both versions: every case is an error with the reason, and the run ends', async () => {
    const run = await runClientChecks(
      {
        command: process.execPath,
        args: ['-e', 'process.stderr.write("unknown option --agent\\n"); process.exit(1)', '{agent}'],
        env: {},
        timeoutMs: 5000,
        agentVersion: 'test',
      },
      { protocols: [1, 2], concurrency: 4 },
    );
    expect(run.conformant).toBe(false);
    expect(new Set(run.cases.map((c) => c.protocol))).toEqual(new Set([1, 2]));
    for (const c of run.cases) expect(c.status).toBe('error');
    expect(run.cases[0]!.reason).toMatch(/without launching the agent.*unknown option --agent/);
  }, 20_000);

  /** `acp-kit check client -- <words>` from the repository root, stopped by the test if it hangs. */
  async function checkClient(words: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const child = spawn(process.execPath, ['bin/acp-kit.js', 'check', 'client', '--', ...words], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // a hang must fail the test, not leave the checker running after it; the limit is far above a
    // run's few seconds, since a loaded 2-core machine stretched it past an earlier 15 s guard
    const guard = setTimeout(() => child.kill(), 60_000);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    return { code, out, err };
  }

  // the new user's exact command: it hung (a gate never opened), then could not find
  // examples/client.mjs from the scratch directory, and the example had no --agent option
  it("the README's command on the example client, typed in the repository: conformant, exit 0", async () => {
    const { code, out, err } = await checkClient(['node', 'examples/client.mjs', '--agent', '{agent}']);
    expect(out, err).toMatch(/Verdict: CONFORMANT/);
    expect(out).toMatch(/Protocol v1/);
    expect(out).toMatch(/Protocol v2/);
    expect(code).toBe(0);
  }, 90_000);

  it("a client file that exists nowhere: exit 1 with the client's error line and what to do, within the time limit", async () => {
    const { code, out, err } = await checkClient(['node', 'examples/no-such-client.mjs', '--agent', '{agent}']);
    expect(code).toBe(1);
    expect(err).toMatch(/the client ended \(exit code 1\) without launching the agent/);
    // the reason is the error line of the client's crash, not the stack's last lines
    expect(err).toMatch(/client stderr: Error: Cannot find module '[^']*\/examples\/no-such-client\.mjs'/);
    expect(err).toMatch(/ran in a scratch directory .* give absolute paths, or --cwd/);
    expect(out).toMatch(/Verdict: NOT CONFORMANT/);
    expect(out).toMatch(/Protocol v2/);
  }, 20_000);

  it('a case that never ends is stopped at the case limit: an error naming the limit, the client killed', async () => {
    // the case launches the real fixture client, never answers it, and waits for its exit without
    // a bound of its own: only the runner's case limit can end it
    let exited = () => false;
    const hangs: ClientCase = {
      name: 'test/hangs',
      title: 'waits for a client that waits for the agent',
      ids: ['ACP-ALL-RPC-01'],
      protocols: [2],
      run: async (ctx) => {
        exited = () => ctx.exited;
        await ctx.launch();
        await ctx.waitExit(1e9);
      },
    };
    const run = await runClientChecks(
      { command: process.execPath, args: [CLIENT], env: {}, timeoutMs: 5000, caseLimitMs: 1500, agentVersion: 'test' },
      { protocols: [2], cases: [hangs] },
    );
    expect(run.cases.map((c) => [c.status, c.reason])).toEqual([
      ['error', 'the case did not end within 1500 ms (the client never finished it); the client was stopped'],
    ]);
    expect(run.conformant).toBe(false);
    expect(exited()).toBe(true);
  }, 20_000);
});

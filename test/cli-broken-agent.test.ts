/**
 * `acp-kit run --agent` with agents that do not speak ACP on stdout, as real processes (needs
 * `npm run build`): fail fast quoting the stdout line, say so when the agent exits, keep working
 * when a banner line is followed by the initialize answer.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { FIXTURES, cliEnv, ndjson, startCli, tempDir, type CliResult } from './fixtures/cli-helpers.js';

function dir(ctx: TestContext, prefix: string): string {
  const d = tempDir(prefix);
  ctx.onTestFinished(() => rmSync(d, { recursive: true, force: true }));
  return d;
}
/** Runs the CLI; if the test ends first (failure, timeout) the CLI is terminated, which ends its agent. */
function runCli(ctx: TestContext, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  const cli = startCli(args, opts);
  ctx.onTestFinished(() => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
  });
  return cli.done;
}
const junkAgent = `node ${join(FIXTURES, 'cli-stdout-junk-agent.mjs')}`;

describe.concurrent('acp-kit run with a broken agent', () => {
  // a generous connect timeout: the run must end long before it by noticing the stdout line
  it(
    'an agent that prints a non-JSON line to stdout and waits: exit 9 quoting the line, said to be stdout',
    { timeout: 60_000 },
    async (ctx) => {
      const env = cliEnv({ ACP_KIT_DATA_DIR: dir(ctx, 'broken-data') });
      const r = await runCli(ctx, ['run', '--connect-timeout', '600', '--agent', junkAgent, 'hi'], {
        cwd: dir(ctx, 'broken'),
        env,
      });
      expect(r.code).toBe(9);
      expect(r.stderr).toContain(
        'acp-kit: error: the agent wrote a line to stdout that is not JSON-RPC: "Welcome to FixtureAgent 1.0 (interactive mode)"',
      );
      expect(r.stderr).toMatch(/hint: .*ACP mode/);
      expect(r.stderr).not.toContain('did not answer initialize');
    },
  );

  it('the same with --json: the result line carries the error kind agent_not_acp', { timeout: 60_000 }, async (ctx) => {
    const env = cliEnv({ ACP_KIT_DATA_DIR: dir(ctx, 'broken-data') });
    const r = await runCli(ctx, ['run', '--json', '--connect-timeout', '600', '--agent', junkAgent, 'hi'], {
      cwd: dir(ctx, 'broken'),
      env,
    });
    expect(r.code).toBe(9);
    const events = ndjson(r.stdout);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'result', exitCode: 9, error: { kind: 'agent_not_acp' } });
    expect(events[0]!.error.message).toContain('"Welcome to FixtureAgent 1.0 (interactive mode)"');
  });

  it('an agent that exits: its exit code and last stdout and stderr lines', { timeout: 60_000 }, async (ctx) => {
    const env = cliEnv({ ACP_KIT_DATA_DIR: dir(ctx, 'broken-data'), FIXTURE_EXIT: '5' });
    const r = await runCli(ctx, ['run', '--agent', junkAgent, 'hi'], { cwd: dir(ctx, 'broken'), env });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('Usage: fixture-agent [--acp]');
    // the exit wins the race against the grace period: it is reported with its code and stderr
    expect(r.stderr).toMatch(/the agent exited with code 5/);
    expect(r.stderr).toContain('fixture: unknown mode, see usage');
  });

  it('a banner line followed by the initialize answer: the run works', { timeout: 60_000 }, async (ctx) => {
    const env = cliEnv({ ACP_KIT_DATA_DIR: dir(ctx, 'broken-data') });
    const r = await runCli(ctx, ['run', '--agent', `node ${join(FIXTURES, 'cli-banner-agent.mjs')}`, 'hello there'], {
      cwd: dir(ctx, 'broken'),
      env,
    });
    expect(r.stderr).toContain('raw-fixture-agent 1.0.0');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('hello there');
  });
});

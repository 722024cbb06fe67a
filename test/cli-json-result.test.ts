/**
 * `--json` always ends with a `result` line, usage errors included (real `acp-kit` processes;
 * needs `npm run build`).
 */
import { rmSync } from 'node:fs';
import { describe, expect, it, type TestContext } from 'vitest';
import { cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

/** Environment with a private data dir, removed when the test ends (per test: they run concurrently). */
function env(ctx: TestContext): NodeJS.ProcessEnv {
  const data = tempDir('json-data');
  ctx.onTestFinished(() => rmSync(data, { recursive: true, force: true }));
  return cliEnv({ ACP_KIT_DATA_DIR: data });
}

describe.concurrent('--json result line on usage errors', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown option', ['run', '--json', '--bogus', 'hi'], /unknown option '--bogus'/],
    ['a missing prompt', ['run', '--json'], /missing required argument 'prompt'/],
    [
      'a bad flag value',
      ['run', '--json', '--connect-timeout', '-1', 'hi'],
      /--connect-timeout must be a positive number/,
    ],
    [
      'conflicting flags',
      ['run', '--json', '--approve-all', '--deny-all', 'hi'],
      /cannot be used with option '--deny-all'/,
    ],
    ['a bad choice', ['run', '--json', '--protocol', '7', 'hi'], /Allowed choices are auto, 1, 2/],
    [
      'model flags with --agent',
      ['run', '--json', '--agent', 'my-agent', '--model-name', 'gpt-4o', 'hi'],
      /--model-name chooses the model of the built-in agent/,
    ],
    ['an unknown option of sessions list', ['sessions', 'list', '--json', '--bogus'], /unknown option '--bogus'/],
  ];
  for (const [what, args, message] of cases) {
    it(`${what}: exit 2, one result line with the usage error`, async (ctx) => {
      const r = await runCli(args, { env: env(ctx) });
      expect(r.code).toBe(2);
      const events = ndjson(r.stdout);
      expect(events).toHaveLength(1);
      // run's turn fields (stopReason, rejectedPermissions) only on run: every command shares type, exitCode, error
      expect(events[0]).toMatchObject({
        type: 'result',
        exitCode: 2,
        error: { kind: 'usage', exitCode: 2 },
        ...(args[0] === 'run' ? { stopReason: null, rejectedPermissions: 0 } : {}),
      });
      expect(events[0]!.error.message).toMatch(message);
      expect(events[0]!.error.hint).toMatch(/--help|Drop/);
      // humans still read the error on stderr
      expect(r.stderr).toMatch(/error/);
    });
  }

  it('without --json stdout stays empty', async (ctx) => {
    const r = await runCli(['run', '--bogus', 'hi'], { env: env(ctx) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

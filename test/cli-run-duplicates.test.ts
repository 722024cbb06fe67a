/**
 * Duplicates and off-by-ones in `acp-kit run` with the built-in demo agent, end to end (real
 * processes; needs `npm run build`): each command header once, v1 shell commands shown as typed,
 * one `update` per real tool call change in `--json`, the demo's line count.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

/** A temp dir removed when the test ends (per test: the tests run concurrently). */
function dir(ctx: TestContext, prefix: string): string {
  const d = tempDir(prefix);
  ctx.onTestFinished(() => rmSync(d, { recursive: true, force: true }));
  return d;
}
const env = (ctx: TestContext) => cliEnv({ ACP_KIT_DATA_DIR: dir(ctx, 'dup-data') });

describe.concurrent('acp-kit run: no duplicates, no off-by-ones', () => {
  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: the command header appears once, as the command was typed`, async (ctx) => {
      const r = await runCli(['run', '--protocol', protocol, '--approve-all', 'run echo hi; echo there'], {
        cwd: dir(ctx, 'dup-cmd'),
        env: env(ctx),
      });
      expect(r.code).toBe(0);
      const headers = r.stdout.split('\n').filter((l) => l.trimStart().startsWith('$ '));
      expect(headers).toEqual(['    $ echo hi; echo there']);
      expect(r.stdout).toContain('    │ hi\n    │ there\n');
    });

    it(`v${protocol} --json: the permission request's tool call is not repeated as an update`, async (ctx) => {
      const r = await runCli(['run', '--json', '--protocol', protocol, '--approve-all', 'run echo hi'], {
        cwd: dir(ctx, 'dup-json'),
        env: env(ctx),
      });
      expect(r.code).toBe(0);
      const events = ndjson(r.stdout);
      const perm = events.findIndex((e) => e.type === 'permission');
      expect(perm).toBeGreaterThan(0);
      const toolUpdates = events
        .slice(0, perm)
        .filter((e) => e.type === 'update' && e.update.sessionUpdate === 'tool_call_update');
      // one announcement of the pending call before the request, not one per (re)application
      expect(toolUpdates).toHaveLength(1);
      expect(toolUpdates[0]!.update).toMatchObject({ status: 'pending', title: 'Run `echo hi`' });
    });
  }

  it('the demo counts 80 lines in an 80-line file', async (ctx) => {
    const cwd = dir(ctx, 'dup-lines');
    writeFileSync(join(cwd, 'eighty.txt'), Array.from({ length: 80 }, (_, i) => `line ${i + 1}\n`).join(''));
    writeFileSync(join(cwd, 'one.txt'), 'only\n');
    const r = await runCli(['run', 'read eighty.txt'], { cwd, env: env(ctx) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('`eighty.txt` has 80 lines. It starts with: "line 1".');
    const one = await runCli(['run', 'read one.txt'], { cwd, env: env(ctx) });
    expect(one.stdout).toContain('`one.txt` has 1 line. It starts with: "only".');
  });
});

/**
 * `acp-kit check client` against acpx, a third-party ACP client CLI (devDependency pinned to 0.1.15,
 * the newest acpx that declares Node 20 support). acpx offers protocol version 1 only, so the v2
 * cases are not applicable. It passes every v1 case but one real finding: it checks fs/* paths
 * against the session cwd lexically, so a symlink inside the cwd that points outside lets
 * fs/read_text_file and fs/write_text_file escape the root (ACP-V1-FS-05). Plain absolute and `..`
 * paths outside the cwd are refused.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runClientChecks } from '../src/checker/client/runner.js';
import type { CheckRun } from '../src/checker/runner.js';

const require = createRequire(import.meta.url);
const ACPX = join(dirname(require.resolve('acpx/package.json')), 'dist/cli.js');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function checkAcpx(protocols: Array<1 | 2>): Promise<CheckRun> {
  // acpx keeps its config and sessions under $HOME: a scratch home keeps the run from touching the real one
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-acpx-home-')));
  dirs.push(home);
  // --approve-all so that acpx runs the terminal the terminal-release case asks for (otherwise it refuses terminal/create)
  return runClientChecks(
    {
      command: process.execPath,
      args: [ACPX, '--agent', '{agent}', '--approve-all', 'exec', 'hello'],
      env: { HOME: home, NO_COLOR: '1' },
      timeoutMs: 8000,
      agentVersion: 'test',
    },
    { protocols, concurrency: 4 },
  );
}

const byStatus = (run: CheckRun, status: string) =>
  run.requirements
    .filter((r) => r.status === status)
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();

describe('check client against acpx 0.1.15', () => {
  it('v1: every case runs but elicitation (acpx shows no forms); the only failure is ACP-V1-FS-05, through a symlink inside the session cwd', async () => {
    const run = await checkAcpx([1]);
    expect(run.cases.filter((c) => c.status !== 'ran').map((c) => `${c.name}: ${c.reason}`)).toEqual([
      'client/elicitation: the client does not advertise elicitation.form',
      'client/elicitation-complete: the client does not advertise elicitation.url',
    ]);
    expect(byStatus(run, 'fail')).toEqual(['v1 ACP-V1-FS-05']);
    expect(run.conformant).toBe(false);
    // exactly the two symlink requests fail: the absolute and `..` paths were refused
    const failures = run.requirements.find((r) => r.id === 'ACP-V1-FS-05')!.failures;
    expect(
      failures.map((f) => f.message.replace(/ of [^\s,]+/, ' of <path>').replace(/cwd [^\s,]+,/, 'cwd <cwd>,')),
    ).toEqual([
      "fs/read_text_file of <path>, outside the session cwd <cwd>, returned the file's content; it must be refused",
      'fs/write_text_file of <path>, outside the session cwd <cwd>, wrote the file; it must be refused',
    ]);
    for (const f of failures) expect(f.message).toMatch(/acp-kit-check-link\/(secret|written-\d)\.txt/);
    expect(byStatus(run, 'pass')).toEqual(
      [
        // it answers a permission request at once: one the agent then withdraws was answered once
        'v1 ACP-ALL-CREQ-04',
        'v1 ACP-ALL-EXT-02',
        'v1 ACP-ALL-EXT-05',
        'v1 ACP-ALL-EXT-06',
        'v1 ACP-ALL-PERM-03',
        'v1 ACP-ALL-RPC-01',
        'v1 ACP-ALL-RPC-02',
        'v1 ACP-ALL-RPC-03',
        'v1 ACP-ALL-RPC-04',
        'v1 ACP-ALL-TRANS-05',
        'v1 ACP-ALL-TRANS-06',
        'v1 ACP-V1-TERM-05',
        'v1 ACP-V1-TERM-06',
        'v1 ACP-V1-TERM-07',
        'v1 ACP-V1-TERM-08',
        'v1 schema/v1',
        // the unstable kinds its v1 capabilities allow, and auth/status_update, each with a round trip after
        'v1 unstable/client-updates',
      ].sort(),
    );
    // acpx answers permission requests at once (here by --approve-all), so none is pending at the cancel
    // and, advertising no elicitation, it is never asked one (ELIC-07, ELIC-09: answers and completions)
    expect(byStatus(run, 'not-checked')).toEqual(['v1 ACP-ALL-ELIC-07', 'v1 ACP-ALL-ELIC-09', 'v1 ACP-V1-CANCEL-03']);
  }, 60_000);

  it('v2: acpx offers protocol version 1, so every v2 case is not applicable and says why', async () => {
    const run = await checkAcpx([2]);
    expect(run.cases.length).toBeGreaterThan(0);
    for (const c of run.cases) {
      expect(c.status).toBe('not-applicable');
      expect(c.reason).toBe('the client offered protocol version 1; the v2 cases need a client that offers 2');
    }
    expect(byStatus(run, 'fail')).toEqual([]);
    expect(byStatus(run, 'pass')).toEqual([]);
  }, 60_000);
});

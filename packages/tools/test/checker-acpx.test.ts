/**
 * `acp-kit check client` against acpx, a third-party ACP client CLI (devDependency pinned to 0.19.1,
 * the current release; it declares Node >= 22.13 and runs on this Node 20 as the test shows). acpx
 * offers protocol version 1 only, so the v2 cases are not applicable. It passes every v1 case it
 * can be asked. 0.1.15 (the version checked before) had one real finding, ACP-V1-FS-05: it checked
 * fs/* paths against the session cwd by their text, so a symlink inside the cwd that pointed outside
 * let fs/read_text_file and fs/write_text_file escape the root; 0.19.1 refuses those too.
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

describe('check client against acpx 0.19.1', () => {
  it('v1: every case runs but elicitation (acpx shows no forms); CONFORMANT, fs/* outside the cwd refused even through a symlink', async () => {
    const run = await checkAcpx([1]);
    expect(run.cases.filter((c) => c.status !== 'ran').map((c) => `${c.name}: ${c.reason}`)).toEqual([
      'client/elicitation: the client does not advertise elicitation.form',
      'client/elicitation-complete: the client does not advertise elicitation.url',
    ]);
    expect(byStatus(run, 'fail')).toEqual([]);
    expect(run.conformant).toBe(true);
    // 0.1.15 checked paths by their text and followed a symlink inside the cwd to the outside (read and
    // write); 0.19.1 resolves them (@openclaw/fs-safe): all six requests (absolute, `..`, through the
    // symlink; read and write) were judged and refused (four without the symlink: the checker adds it
    // only in a cwd it owns)
    const roots = run.cases.find((c) => c.name === 'client/fs-roots');
    const judged = roots?.checks.filter((c) => c.id === 'ACP-V1-FS-05') ?? [];
    expect(judged.map((c) => c.ok)).toEqual([true, true, true, true, true, true]);
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
        'v1 ACP-V1-FS-05',
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

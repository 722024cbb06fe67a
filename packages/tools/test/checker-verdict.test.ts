/**
 * The verdict of `acp-kit check agent` on agents that cannot be checked (issue 23 item 6): a case
 * that fails or cannot run is never conformant, with or without --only; a program that does not
 * speak ACP is known after the handshake, not after every case timed out; a command that does not
 * exist is one line and exit 9. Real processes over real pipes, through the CLI.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const GARBAGE = fileURLToPath(new URL('../../../test/fixtures/checker/garbage-agent.mjs', import.meta.url));
const cli = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });

describe('check agent on an agent that cannot be checked', () => {
  it('--only ACP-V2-INIT* on a program that prints one non-JSON line: NOT CONFORMANT in seconds, the failure listed', () => {
    const started = Date.now();
    const r = cli(['check', 'agent', '--protocol', '2', '--only', 'ACP-V2-INIT*', '--', process.execPath, GARBAGE]);
    const ms = Date.now() - started;
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('Verdict: NOT CONFORMANT');
    expect(r.stdout).toMatch(/not an ACP message/);
    expect(ms).toBeLessThan(20_000);
  });

  it('--json: conformant false, the failed requirement in requirements, the cases not run named', () => {
    const r = cli([
      'check',
      'agent',
      '--protocol',
      '2',
      '--only',
      'ACP-V2-INIT*',
      '--json',
      '--',
      process.execPath,
      GARBAGE,
    ]);
    expect(r.status).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(['report', 'result']);
    expect(lines[1]).toMatchObject({ type: 'result', conformant: false, exitCode: 1 });
    const doc = lines[0] as unknown as {
      conformant: boolean;
      requirements: Array<{ id: string; status: string }>;
      notRun: Array<{ protocol: number; cases: number }>;
    };
    expect(doc.conformant).toBe(false);
    expect(doc.requirements.filter((x) => x.status === 'fail').map((x) => x.id)).toContain('ACP-ALL-TRANS-05');
    expect(doc.notRun[0]!.protocol).toBe(2);
  });

  it('without --only, both versions: NOT CONFORMANT with a handful of lines, not a FAIL per case', () => {
    const started = Date.now();
    const r = cli(['check', 'agent', '--', process.execPath, GARBAGE]);
    expect(r.status).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.stdout.split('\n').filter((l) => /FAIL/.test(l)).length).toBeLessThanOrEqual(6);
    expect(r.stdout).toMatch(/handshake failed, \d+ other cases not run/);
  });

  it('a command that does not exist: exit 9, one line naming it', () => {
    const r = cli(['check', 'agent', '--', '/nonexistent/acp-agent-x']);
    expect(r.status, r.stdout + r.stderr).toBe(9);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('/nonexistent/acp-agent-x');
    expect(r.stderr).not.toMatch(/n\/a/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/**
 * `acp-kit check agent --cancel-prompt <text> --short-prompt <text>` (issue 23 item 14b): the
 * library took a prompt per case kind, the CLI did not. Through the CLI, on the node mirror of the
 * conformance kit's v2 agent (real processes, real pipes): its "__hang__" prompt waits for a cancel,
 * any other prompt ends at once, so which case got which prompt shows in the report.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const KIT_V2 = fileURLToPath(new URL('./fixtures/checker/kit-v2-conforming.mjs', import.meta.url));
type Report = {
  requirements: Array<{ id: string; status: string; failures?: Array<{ message: string }> }>;
  cases: Array<{ name: string; status: string; reason?: string }>;
};
function check(flags: string[]): { status: number | null; report: Report; out: string } {
  const r = spawnSync(
    process.execPath,
    [
      BIN,
      'check',
      'agent',
      '--protocol',
      '2',
      '--json',
      '--timeout',
      '1500',
      '--env',
      'KIT_BREAK=session',
      ...flags,
      '--',
      process.execPath,
      KIT_V2,
    ],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
  );
  const first = r.stdout.split('\n')[0] ?? '';
  return {
    status: r.status,
    report: (first.startsWith('{') ? JSON.parse(first) : { requirements: [], cases: [] }) as Report,
    out: r.stdout + r.stderr,
  };
}
const statusOf = (r: Report, id: string) => r.requirements.find((x) => x.id === id)?.status;

describe('check agent --cancel-prompt / --short-prompt', () => {
  it('--cancel-prompt reaches the cancel case only: a quick --prompt, a hanging cancel prompt, the cancel is exercised', () => {
    const quick = check(['--only', 'ACP-V2-CANCEL-05', '--prompt', 'go']);
    // the quick prompt's turn ends before the cancel: not exercised
    expect(statusOf(quick.report, 'ACP-V2-CANCEL-05'), quick.out).not.toBe('pass');
    const r = check(['--only', 'ACP-V2-CANCEL-05', '--prompt', 'go', '--cancel-prompt', '__hang__']);
    expect(statusOf(r.report, 'ACP-V2-CANCEL-05'), r.out).toBe('pass');
    expect(r.status).toBe(0);
  });

  it('--short-prompt reaches the resume case: a hanging short prompt makes it time out (NOT CONFORMANT), the default one passes', () => {
    const ok = check(['--only', 'ACP-V2-RESUME-03', '--prompt', '__hang__']);
    expect(statusOf(ok.report, 'ACP-V2-RESUME-03'), ok.out).toBe('pass');
    const r = check(['--only', 'ACP-V2-RESUME-03', '--short-prompt', '__hang__']);
    expect(r.status, r.out).toBe(1);
    // the unfinished case fails its MUST (before: its first id, the draft-tier RESUME-02, and the verdict said CONFORMANT)
    const failed = r.report.requirements.find((x) => x.id === 'ACP-V2-RESUME-03');
    expect([failed?.status, failed?.failures?.[0]?.message], r.out).toEqual([
      'fail',
      expect.stringMatching(/idle state_update that ends the turn did not arrive/),
    ]);
  });
});

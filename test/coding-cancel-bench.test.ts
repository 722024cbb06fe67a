/**
 * Smoke test of the cancel-latency bench (`bench/cancel.mjs`, needs `npm run build`): every
 * scenario really ends its turn `cancelled` (the bench throws otherwise), with sane numbers, and
 * no `sleep 30` is left behind.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function sleepers(cwdPrefix: string): number {
  // processes whose cwd is a bench project dir (ours only, not other `sleep 30`s on the machine)
  let n = 0;
  for (const pid of execFileSync('pgrep', ['-x', 'sleep'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)) {
    try {
      if (execFileSync('readlink', [`/proc/${pid}/cwd`], { encoding: 'utf8' }).includes(cwdPrefix)) n++;
    } catch {
      /* gone */
    }
  }
  return n;
}

describe('bench/cancel.mjs', () => {
  it(
    'runs every scenario: cancelled turns, one row each, latencies well under a second',
    { timeout: 60_000 },
    async () => {
      const { runCancelBench } = await import('../bench/cancel.mjs' as string);
      const { rows } = await runCancelBench({ iterations: 2 });
      expect(rows.map((r: any) => `${r.scenario} v${r.version}`)).toEqual([
        'streaming v1',
        'streaming v2',
        'command (agent process + display terminal) v2',
        'command (client terminal) v1',
        'command (agent process) v1',
      ]);
      for (const r of rows) {
        expect(r.n).toBe(2);
        expect(r.p50).toBeGreaterThan(0);
        expect(r.p50).toBeLessThanOrEqual(r.p99);
        expect(r.p99).toBeLessThanOrEqual(r.max);
        expect(r.max).toBeLessThan(1000);
      }
      // the killed `sleep 30`s may take a moment to be reaped: wait (bounded) for none to be left
      const deadline = Date.now() + 5_000;
      while (sleepers('acp-kit-cancel-bench-') > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(sleepers('acp-kit-cancel-bench-')).toBe(0);
    },
  );
});

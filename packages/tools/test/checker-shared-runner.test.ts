/** The planning and pooling that `check agent` and `check client` share (src/checker/runner.ts). */
import { describe, expect, it } from 'vitest';
import type { CaseInfo } from '../src/checker/case.js';
import { planJobs, runPool } from '../src/checker/runner.js';

const cases: CaseInfo[] = [
  { name: 'a', title: 'a', ids: ['ACP-ALL-LIST-01'], protocols: [1, 2] },
  { name: 'b', title: 'b', ids: ['ACP-V2-PLAN-01'], protocols: [2] },
  { name: 'c', title: 'c', ids: ['ACP-V1-LOAD-02', 'ACP-ALL-CLOSE-01'], protocols: [1] },
];
const WIRE = ['ACP-ALL-RPC-01'];
const planned = (options: Parameters<typeof planJobs<CaseInfo>>[1]) =>
  planJobs(cases, options, WIRE).jobs.map((j) => `${j.c.name}@v${j.v}`);

describe('planJobs', () => {
  it('plans each case under each asked version it speaks, version by version', () => {
    expect(planned({ protocols: [1, 2] })).toEqual(['a@v1', 'c@v1', 'a@v2', 'b@v2']);
    expect(planned({ protocols: [2] })).toEqual(['a@v2', 'b@v2']);
  });

  it('with --only keeps the cases that judge a wanted ID (prefix patterns too), and every case for a wanted wire or schema ID', () => {
    expect(planned({ protocols: [1, 2], only: ['ACP-ALL-CLOSE-01'] })).toEqual(['c@v1']);
    expect(planned({ protocols: [1, 2], only: ['ACP-V2-*'] })).toEqual(['b@v2']);
    expect(planned({ protocols: [1, 2], only: ['ACP-ALL-RPC-01'] })).toEqual(['a@v1', 'c@v1', 'a@v2', 'b@v2']);
    expect(planned({ protocols: [1, 2], only: ['schema/v2'] })).toEqual(['a@v2', 'b@v2']);
  });

  it('wanted() applies --only and --skip to requirement IDs', () => {
    const { wanted } = planJobs(cases, { protocols: [1], only: ['ACP-ALL-*'], skip: ['ACP-ALL-LIST-01'] }, WIRE);
    expect(['ACP-ALL-CLOSE-01', 'ACP-ALL-LIST-01', 'ACP-V1-LOAD-02'].map(wanted)).toEqual([true, false, false]);
  });
});

describe('runPool', () => {
  it('runs at most `concurrency` at once and returns the results by index', async () => {
    let active = 0;
    let most = 0;
    const started: number[] = [];
    const results = await runPool(7, 3, async (i) => {
      started.push(i);
      active++;
      most = Math.max(most, active);
      // give the other workers a chance to start before this one ends
      await new Promise<void>((resolve) => setImmediate(resolve));
      active--;
      return i * 10;
    });
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(most).toBe(3);
  });

  it('runs one at a time when asked for 0 and returns nothing for no jobs', async () => {
    let active = 0;
    let most = 0;
    await runPool(3, 0, async () => {
      most = Math.max(most, ++active);
      await new Promise<void>((resolve) => setImmediate(resolve));
      active--;
    });
    expect(most).toBe(1);
    expect(await runPool(0, 4, async () => 1)).toEqual([]);
  });
});

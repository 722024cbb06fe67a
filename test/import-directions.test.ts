import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without type declarations
import { wrongDirections } from '../scripts/import-directions.mjs';

interface Wrong {
  file: string;
  line: number;
  from: string;
  to: string;
  spec: string;
}

/**
 * README's layer rule, checked: protocol <- rpc <- agent / client <- tools <- cli
 * (scripts/import-directions.mjs holds the table). Tools reaching into a sibling tool are what
 * issue 25 item 2 removes (shared code gets its own home); until then their count may only fall.
 */
const SIBLING_BUDGET: Record<string, number> = {
  'checker -> proxy': 12,
  'inspector -> proxy': 17,
};

describe('import directions (README layers, issue 25 item 2)', () => {
  it('no import in src goes against the layer rule beyond the listed sibling-tool imports', () => {
    const wrong: Wrong[] = wrongDirections('src');
    const perEdge = new Map<string, Wrong[]>();
    for (const w of wrong) perEdge.set(`${w.from} -> ${w.to}`, [...(perEdge.get(`${w.from} -> ${w.to}`) ?? []), w]);
    const problems: string[] = [];
    for (const [edge, list] of perEdge) {
      const budget = SIBLING_BUDGET[edge] ?? 0;
      if (list.length > budget) problems.push(`${edge}: ${list.length} imports (allowed ${budget}):\n${list.map((w) => `  ${w.file}:${w.line} ${w.spec}`).join('\n')}`);
    }
    for (const [edge, budget] of Object.entries(SIBLING_BUDGET)) {
      const n = perEdge.get(edge)?.length ?? 0;
      if (n < budget) problems.push(`${edge}: ${n} imports left, budget ${budget}: lower SIBLING_BUDGET`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('finds import type, export-from and dynamic import() against the rule, not imports within a layer', () => {
    const wrong: Wrong[] = wrongDirections('test/fixtures/import-directions/src');
    expect(wrong.map((w) => [w.from, w.to, w.line])).toEqual([
      ['protocol', 'rpc', 2],
      ['protocol', 'rpc', 3],
      ['protocol', 'rpc', 4],
    ]);
  });
});

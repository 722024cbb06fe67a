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
 * README's layer rule, checked: protocol <- rpc <- agent / client <- captures <- tools <- cli
 * (scripts/import-directions.mjs holds the table). The 29 imports of one tool into another
 * (checker and inspector into proxy) went when the capture modules got their own home.
 */
describe('import directions (README layers, issue 25 item 2)', () => {
  it('no import in src goes against the layer rule', () => {
    const wrong: Wrong[] = wrongDirections('src');
    expect(wrong.map((w) => `${w.file}:${w.line} ${w.from} -> ${w.to} (${w.spec})`)).toEqual([]);
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

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
 * README's dependency rule, checked (scripts/import-directions.mjs): packages reach each other only
 * by name and only when their package.json lists the other as a dependency; inside
 * @acp-kit/protocol the model never imports rpc/ or node/.
 */
describe('import directions (README dependency rule, issue 25 item 2)', () => {
  it('no import in the workspace goes against the rule', () => {
    const wrong: Wrong[] = wrongDirections('.');
    expect(wrong.map((w) => `${w.file}:${w.line} ${w.from} -> ${w.to} (${w.spec})`)).toEqual([]);
  });

  it('finds a package used without being a dependency, a relative path out of a package, and the model reaching into rpc (import type, export-from, import())', () => {
    const wrong: Wrong[] = wrongDirections('test/fixtures/import-directions');
    expect(wrong.map((w) => [w.file, w.from, w.to, w.line])).toEqual([
      ['src/cli.ts', 'acp-kit', '@acp-kit/agent', 2],
      ['packages/agent/src/s.ts', '@acp-kit/agent', '@acp-kit/protocol', 2],
      ['packages/protocol/src/b.ts', 'protocol:model', 'protocol:rpc', 2],
      ['packages/protocol/src/b.ts', 'protocol:model', 'protocol:rpc', 3],
      ['packages/protocol/src/b.ts', 'protocol:model', 'protocol:rpc', 4],
    ]);
  });
});

/**
 * docs/conformance.md lists every requirement ID the project cites, with the test files citing it:
 * a new citation without a row, or a row naming a test file that is gone, fails here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import { checkCatalogue, citedIds, parseCatalogue } from '../scripts/conformance.mjs';
import { tempDir } from './support/temp.js';

// IDs below are spelled `${P}-...` so that this file does not itself cite them in the catalogue
const P = 'ACP';

describe('conformance catalogue (docs/conformance.md)', () => {
  it('has a described row for every requirement ID cited in src/, test/, docs/, examples/, bench/ and README.md', () => {
    const problems: string[] = checkCatalogue();
    expect(
      problems,
      `run node scripts/conformance.mjs --write, then describe the TODO rows:\n${problems.join('\n')}`,
    ).toEqual([]);
  });

  it('expands lists and ranges in citations to every ID they name', () => {
    expect(citedIds(`see ${P}-ALL-DEL-01..03 and ${P}-V2-LIFE-05/06; ${P}-V2-LIFE-03..05/09/10.`)).toEqual(
      [
        'ALL-DEL-01',
        'ALL-DEL-02',
        'ALL-DEL-03',
        'V2-LIFE-05',
        'V2-LIFE-06',
        'V2-LIFE-03',
        'V2-LIFE-04',
        'V2-LIFE-05',
        'V2-LIFE-09',
        'V2-LIFE-10',
      ].map((id) => `${P}-${id}`),
    );
    expect(citedIds(`${P}-V1-TERM-02..08:`)).toHaveLength(7);
    expect(citedIds(`no ids here, ${P}-X-1 neither`)).toEqual([]);
  });

  it('reports cited IDs without a row, rows naming missing test files, citing tests a row omits, and TODO rows', () => {
    const root = tempDir('acp-kit-conformance-');
    for (const dir of ['src', 'test', 'docs']) mkdirSync(join(root, dir));
    writeFileSync(join(root, 'src/a.ts'), `// ${P}-V2-LIFE-05..06\n`);
    writeFileSync(join(root, 'test/b.test.ts'), `// ${P}-V2-LIFE-05 and ${P}-ALL-RPC-02\n`);
    writeFileSync(
      join(root, 'docs/conformance.md'),
      [
        '| ID | Requirement | Spec page | Tests |',
        '|---|---|---|---|',
        `| ${P}-V2-LIFE-05 | running on start \\| resume | docs/protocol/v2/prompt-lifecycle.mdx | \`test/gone.test.ts\` |`,
        `| ${P}-ALL-RPC-02 | TODO | docs/protocol/v1/overview.mdx | \`test/b.test.ts\` |`,
        '',
      ].join('\n'),
    );
    expect(checkCatalogue(root).sort()).toEqual(
      [
        `${P}-V2-LIFE-06 is cited in src/a.ts but has no row in docs/conformance.md`,
        `${P}-V2-LIFE-05: test/b.test.ts cites it but the row's tests do not list it`,
        `${P}-V2-LIFE-05: the row names test/gone.test.ts, which does not exist`,
        `${P}-ALL-RPC-02: the row has no description (TODO)`,
      ].sort(),
    );
  });

  it('reads the table cells, escaped pipes included', () => {
    const rows = parseCatalogue(
      `| ${P}-ALL-EXT-05 | answer \\| reply -32601 | docs/x.mdx | \`test/a.test.ts\`, \`test/b.test.ts\` |\n`,
    );
    expect(rows.get(`${P}-ALL-EXT-05`)).toEqual({
      description: 'answer | reply -32601',
      spec: 'docs/x.mdx',
      tests: ['test/a.test.ts', 'test/b.test.ts'],
    });
  });
});

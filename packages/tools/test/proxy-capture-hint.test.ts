// A file acp-kit cannot read as a capture: every capture command exits 2 and its hint names the three
// formats it reads (acp-kit NDJSON, acp-devtools export, Rust conductor .jsons trace).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../../test/fixtures/cli-helpers.js';

describe('capture commands: a file that is no capture', () => {
  it.each([['validate'], ['stats'], ['captures', 'show']])(
    '%s: exit 2, the hint names all three readable formats',
    async (...command) => {
      const file = join(tempDir('capture-hint'), 'notes.txt');
      writeFileSync(file, 'these are my notes, not a capture\n');
      const r = await runCli([...command, file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('line 1 is not JSON');
      expect(r.stderr).toMatch(
        /acp-kit capture \(\.ndjson, from acp-kit proxy --record\), an acp-devtools export \(\.json\) or a Rust SDK conductor trace \(\.jsons\)/,
      );
    },
  );
});

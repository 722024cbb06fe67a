/** The checker quotes docs/conformance.md: its requirement texts must be the catalogue's one-liners. */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import { parseCatalogue } from '../../../scripts/conformance.mjs';
import { readFileSync } from 'node:fs';
import { REQUIREMENTS } from '../src/checker/requirements.js';
import { ALL_CASES } from '../src/checker/cases/index.js';

describe('checker requirements', () => {
  it('quote the row of docs/conformance.md word for word', () => {
    const rows: Map<string, { description: string }> = parseCatalogue(
      readFileSync(new URL('../../../docs/conformance.md', import.meta.url), 'utf8'),
    );
    for (const r of REQUIREMENTS.values()) {
      // the official schemas, and the unstable-schema rules the digest has no ID for (docs/checker.md lists them)
      if (r.id.startsWith('schema/')) continue;
      if (r.id.startsWith('unstable/')) {
        expect([r.tier, r.text.length > 20], r.id).toEqual(['unstable', true]);
        continue;
      }
      expect(rows.get(r.id)?.description, r.id).toBe(r.text);
    }
  });

  it('cover every ID a case judges', () => {
    for (const c of ALL_CASES) for (const id of c.ids) expect(REQUIREMENTS.has(id), `${c.name}: ${id}`).toBe(true);
  });
});

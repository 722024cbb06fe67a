/**
 * Issue 26 item 1: docs/coverage.md is generated from the four schema files of the pinned SDK and
 * the hand-edited docs/coverage-claims.json (scripts/coverage.mjs). This test keeps the two honest:
 * every schema row is claimed (and no claimed row is out of the schemas), the file is what the
 * script writes, every claimed test file exists and names the row, and the stable rows' gaps are
 * the known ones below, a list that may only shrink.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { v2WireMethod } from '../packages/protocol/src/codec/method-names.js';
import {
  CLAIMS_PATH,
  DOC_PATH,
  LAYER_KEYS,
  ROOT,
  V2_RENAMES,
  claimProblems,
  loadClaims,
  loadSchemas,
  renderDoc,
  schemaRows,
  sharedListNames,
  stableGaps,
  // @ts-expect-error -- a plain .mjs script without type declarations
} from '../scripts/coverage.mjs';
import { V1_UPDATE_KINDS, V2_UPDATE_KINDS } from '../packages/protocol/src/codec/index.js';
import { stableUpdateKinds } from './support/schema-lists.js';
import { tempDir } from './support/temp.js';

interface Row {
  group: 'methods' | 'updates';
  name: string;
  stable: boolean;
  v1: string | null;
  v2: string | null;
  wire: Record<string, string>;
}
type Cells = Record<string, unknown>;
type Claims = Record<'methods' | 'updates', Record<string, Cells>>;

/**
 * Stable cells that nothing exercises yet: the to-do list of issue 26 ("stable rows: every cell
 * filled"). It may only shrink: a cell that gets a test must leave this list (the test says so).
 */
const KNOWN_GAPS: Record<string, string[]> = {};

const rows = (): Row[] => schemaRows();
const claims = (): Claims => loadClaims();

/** A copy of the claims with `edit` applied (the test's own inputs, never the files). */
function edited(edit: (c: Claims) => void): Claims {
  const copy = structuredClone(claims());
  edit(copy);
  return copy;
}

describe('coverage matrix (issue 26 item 1)', () => {
  it('every schema row has a claim per layer, every claim a schema row, every claimed test names its row', () => {
    const problems: string[] = claimProblems(rows(), claims());
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it(`${DOC_PATH} is what scripts/coverage.mjs generates (run npm run coverage)`, () => {
    expect(readFileSync(join(ROOT, DOC_PATH), 'utf8')).toBe(renderDoc(rows(), claims()));
  });

  it('stable rows have no gap beyond the known ones, and every known gap is still one', () => {
    const known = Object.entries(KNOWN_GAPS).flatMap(([row, layers]) => layers.map((l) => `${row} ${l}`));
    const found: string[] = stableGaps(rows(), claims());
    const problems = [
      ...found.filter((g) => !known.includes(g)).map((g) => `${g}: a new gap in a stable row (fill it)`),
      ...known.filter((g) => !found.includes(g)).map((g) => `${g}: no longer a gap, remove it from KNOWN_GAPS`),
    ];
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('the rows: both directions, both versions, the renamed auth methods as one row each', () => {
    const all = rows();
    const byName = new Map(all.map((r) => [`${r.group} ${r.name}`, r]));
    expect(byName.get('methods session/prompt')).toMatchObject({ v1: 'stable', v2: 'stable', stable: true });
    expect(byName.get('methods session/load')).toMatchObject({ v1: 'stable', v2: null });
    expect(byName.get('methods session/fork')).toMatchObject({ v1: 'unstable', v2: 'unstable', stable: false });
    expect(byName.get('methods fs/read_text_file')).toMatchObject({ directions: ['agent->client'] });
    expect(byName.get('methods authenticate')).toMatchObject({ wire: { v2: 'auth/login' } });
    expect(byName.has('methods auth/login')).toBe(false);
    expect(byName.get('updates plan_update')).toMatchObject({ v1: 'unstable', v2: 'stable', stable: true });
    expect(byName.get('updates tool_call')).toMatchObject({ v1: 'stable', v2: null });
    // the renames are the codec's, not a second opinion
    for (const [v2, neutral] of V2_RENAMES as Map<string, string>) expect(v2WireMethod(neutral)).toBe(v2);
    for (const r of all.filter((x) => x.group === 'methods' && x.v1 && x.v2 && !x.wire.v2))
      expect(v2WireMethod(r.name), r.name).toBe(r.name);
    expect(all.length).toBeGreaterThan(60);
    expect(loadSchemas()).toHaveLength(4);
  });
});

describe('shared lists of rows (test/support/schema-lists.ts)', () => {
  it.each([1, 2] as const)('v%i: stableUpdateKinds is the stable update rows, and what the codec decodes', (v) => {
    const stable = rows()
      .filter((r) => r.group === 'updates' && r[`v${v}`] === 'stable')
      .map((r) => r.name)
      .sort();
    expect([...stableUpdateKinds(v)].sort()).toEqual(stable);
    expect([...(v === 1 ? V1_UPDATE_KINDS : V2_UPDATE_KINDS)].sort()).toEqual(stable);
  });

  it('a test names the rows of a shared list only when it imports it, loops over it and asserts', () => {
    const row = (name: string): Row => {
      const r = rows().find((x) => x.group === 'updates' && x.name === name);
      if (!r) throw new Error(`no row ${name}`);
      return r;
    };
    const imp = "import { stableUpdateKinds } from '../../../test/support/schema-lists.js';\n";
    const loopBoth =
      'describe.each([1, 2] as const)((v) => { it.each(stableUpdateKinds(v))((k) => expect(k).toBe(k)); });';
    const loopV2 = 'for (const k of stableUpdateKinds(2)) expect(k).toBeTruthy();';
    // v1-only `plan`, v2-only `plan_update`, `notice` in both
    expect(sharedListNames(imp + loopBoth, row('plan'))).toBe(true);
    expect(sharedListNames(imp + loopV2, row('plan_update'))).toBe(true);
    expect(sharedListNames(imp + loopV2, row('notice'))).toBe(true);
    // only the versions it loops over
    expect(sharedListNames(imp + loopV2, row('plan'))).toBe(false);
    // a variable version without a loop over both versions
    expect(sharedListNames(imp + 'it.each(stableUpdateKinds(v))((k) => expect(k).toBe(k));', row('notice'))).toBe(
      false,
    );
    // no import, an import from elsewhere, no loop, no assertion
    expect(sharedListNames(loopV2, row('notice'))).toBe(false);
    expect(sharedListNames(imp.replace('schema-lists', 'other-lists') + loopV2, row('notice'))).toBe(false);
    expect(sharedListNames(imp + 'const n = stableUpdateKinds(2).length; expect(n).toBe(19);', row('notice'))).toBe(
      false,
    );
    expect(sharedListNames(imp + 'for (const k of stableUpdateKinds(2)) console.log(k);', row('notice'))).toBe(false);
  });
});

describe('the checks can fail', () => {
  it('a schema row the claims lack, and a claimed row the schemas lack', () => {
    const fake: Row = { group: 'methods', name: 'session/teleport', stable: true, v1: 'stable', v2: null, wire: {} };
    const extra = edited((c) => {
      c.updates.warp_update = Object.fromEntries(LAYER_KEYS.map((l: string) => [l, { na: 'x' }]));
    });
    expect(claimProblems([...rows(), fake], claims())).toEqual([
      `methods session/teleport: in the schemas but not in ${CLAIMS_PATH}`,
    ]);
    expect(claimProblems(rows(), extra)).toEqual([`updates warp_update: in ${CLAIMS_PATH} but in no schema`]);
  });

  it('a claimed test file that does not exist, or never names the row', () => {
    const bogus = edited((c) => {
      c.methods['session/prompt'] = { ...c.methods['session/prompt'], codec: ['test/no-such.test.ts'] };
      c.updates.notice = { ...c.updates.notice, codec: ['packages/protocol/test/version.test.ts'] };
    });
    expect(claimProblems(rows(), bogus)).toEqual([
      'methods session/prompt / codec: test/no-such.test.ts does not exist',
      'updates notice / codec: packages/protocol/test/version.test.ts never names notice',
    ]);
  });

  it('a cell without a reason or with a reason of two lines, an unknown layer, a missing layer', () => {
    const bad = edited((c) => {
      const fork = { ...c.methods['session/fork'], agent: { missing: '' }, cli: { na: 'two\nlines' }, teleporter: [] };
      delete fork.codec;
      c.methods['session/fork'] = fork;
    });
    expect(claimProblems(rows(), bad)).toEqual([
      'methods session/fork: unknown layer teleporter',
      'methods session/fork / codec: no cell',
      'methods session/fork / agent: a cell is a list of test files, {"na": "one-line reason"} or {"missing": "one-line reason"}',
      'methods session/fork / cli: a cell is a list of test files, {"na": "one-line reason"} or {"missing": "one-line reason"}',
    ]);
  });

  it('a test file names a method by its Methods constant, not by a longer one, nor in a comment', () => {
    const dir = tempDir('acp-coverage-');
    mkdirSync(join(dir, 'test'));
    mkdirSync(join(dir, 'packages/protocol/src/model'), { recursive: true });
    cpSync(join(ROOT, 'packages/protocol/src/model/methods.ts'), join(dir, 'packages/protocol/src/model/methods.ts'));
    writeFileSync(join(dir, 'test/a.test.ts'), 'send(Methods.sessionNew, {});\n');
    writeFileSync(join(dir, 'test/b.test.ts'), 'send(Methods.sessionNewer, {}); // session/new unquoted\n');
    writeFileSync(join(dir, 'test/c.test.ts'), "/** sends 'session/new' */\nsend(x); // then `session/new`\n");
    const only = (file: string): Claims =>
      edited((c) => {
        c.methods['session/new'] = { ...c.methods['session/new'], codec: [file] };
        for (const group of ['methods', 'updates'] as const)
          for (const [name, cells] of Object.entries(c[group]))
            for (const l of LAYER_KEYS as string[])
              if (Array.isArray(cells[l]) && name !== 'session/new') cells[l] = { na: 'x' };
        for (const l of LAYER_KEYS as string[])
          if (l !== 'codec' && Array.isArray(c.methods['session/new']?.[l])) c.methods['session/new'][l] = { na: 'x' };
      });
    expect(claimProblems(rows(), only('test/a.test.ts'), dir)).toEqual([]);
    expect(claimProblems(rows(), only('test/b.test.ts'), dir)).toEqual([
      'methods session/new / codec: test/b.test.ts never names session/new',
    ]);
    expect(claimProblems(rows(), only('test/c.test.ts'), dir)).toEqual([
      'methods session/new / codec: test/c.test.ts never names session/new',
    ]);
  });
});

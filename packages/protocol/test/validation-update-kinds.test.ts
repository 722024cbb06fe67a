/**
 * The validator checks each sessionUpdate kind of the stable schemas against its own branch, and
 * its verdict is the official schema's: for every kind, generated schema-valid updates pass, and
 * the same updates with one field replaced by junk get the verdict the whole schema (Ajv) gives.
 * The kinds come from the schema itself (test/support/schema-lists.ts), which lets
 * docs/coverage-claims.json point here for every stable kind (issue 26 item 1).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getValidator } from '../src/validation/index.js';
import { SchemaArbitraries } from '../../../test/support/schema-arbitrary.js';
import { stableUpdateKinds } from '../../../test/support/schema-lists.js';

type Version = 1 | 2;

const JUNK: unknown[] = [null, 7, 'x', [], {}, true];

function schemaOf(v: Version): { $defs: Record<string, unknown> } {
  const file = join(
    import.meta.dirname,
    '../../..',
    'node_modules/@agentclientprotocol/sdk/schema',
    `v${v}`,
    'schema.json',
  );
  return JSON.parse(readFileSync(file, 'utf8')) as { $defs: Record<string, unknown> };
}

/** `u` with its field `key` replaced by `junk` (the discriminator is left alone). */
function mutated(u: unknown, key: string, junk: unknown): unknown {
  return { ...(u as Record<string, unknown>), [key]: junk };
}

describe.each([1, 2] as const)('v%i: the validator checks every stable sessionUpdate kind', (version) => {
  const schema = schemaOf(version);
  const branches = new SchemaArbitraries(schema).unionBranches('SessionUpdate', 'sessionUpdate');
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, logger: false });
  ajv.addSchema({ ...schema, $id: `v${version}` });
  const official = ajv.getSchema(`v${version}#/$defs/SessionUpdate`);
  const validator = getValidator(version);

  it("the generator's branches are exactly the schema's kinds", () => {
    expect(branches.map((b) => b.tag).sort()).toEqual([...stableUpdateKinds(version)].sort());
  });

  it.each(stableUpdateKinds(version))('%s: valid updates pass, mutated ones get the schema verdict', (kind) => {
    const branch = branches.find((b) => b.tag === kind);
    expect(branch, kind).toBeDefined();
    if (!branch || !official) throw new Error(`no branch or schema for ${kind}`);
    let rejected = 0;
    fc.assert(
      fc.property(branch.arbitrary, fc.nat(), fc.constantFrom(...JUNK), (u, pick, junk) => {
        expect(official(u), JSON.stringify(u)).toBe(true);
        expect(validator.update(u), JSON.stringify(u)).toBeNull();
        const keys = Object.keys(u as object).filter((k) => k !== 'sessionUpdate');
        if (keys.length === 0) return;
        const bad = mutated(u, keys[pick % keys.length] ?? '', junk);
        const schemaSays = official(bad) === true;
        const ours = validator.update(bad);
        if (!schemaSays) rejected++;
        expect(ours === null, `${JSON.stringify(bad)}: schema says ${schemaSays ? 'valid' : 'invalid'}`).toBe(
          schemaSays,
        );
      }),
      { seed: 26, numRuns: 60 },
    );
    // the mutations reach the other verdict too, unless the kind takes any value in every field
    expect(rejected, kind).toBeGreaterThan(0);
  });
});

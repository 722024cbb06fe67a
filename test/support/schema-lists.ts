/**
 * Lists of protocol rows read from the official schemas of the pinned `@agentclientprotocol/sdk`
 * at test time: the one place tests take them from, instead of each keeping a hand-written copy.
 *
 * The coverage matrix (scripts/coverage.mjs) counts a test that imports one of these lists and
 * loops over it (`it.each(stableUpdateKinds(2))`, `for (const kind of stableUpdateKinds(v))`)
 * as naming every row of that list: see SHARED_LISTS there. test/coverage-matrix.test.ts checks
 * that these lists are the rows the script computes from the same schemas.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Version = 1 | 2;
interface Arm {
  properties?: { sessionUpdate?: { const?: unknown } };
}
interface Schema {
  $defs?: { SessionUpdate?: { oneOf?: Arm[]; anyOf?: Arm[] } };
}

const cache = new Map<Version, readonly string[]>();

/** The stable schema of `version` (`schema/v<version>/schema.json`). */
function stableSchema(version: Version): Schema {
  const file = fileURLToPath(
    new URL(`../../node_modules/@agentclientprotocol/sdk/schema/v${version}/schema.json`, import.meta.url),
  );
  return JSON.parse(readFileSync(file, 'utf8')) as Schema;
}

/** Every `sessionUpdate` kind of the stable schema of `version`, in schema order. */
export function stableUpdateKinds(version: Version): readonly string[] {
  const hit = cache.get(version);
  if (hit) return hit;
  const union = stableSchema(version).$defs?.SessionUpdate;
  const kinds = (union?.oneOf ?? union?.anyOf ?? [])
    .map((arm) => arm.properties?.sessionUpdate?.const)
    .filter((k): k is string => typeof k === 'string');
  if (kinds.length === 0) throw new Error(`the v${version} schema has no SessionUpdate kinds`);
  cache.set(version, kinds);
  return kinds;
}

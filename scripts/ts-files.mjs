// The hand-written TypeScript sources of a tree, for the scripts that measure src (casts, function
// length, import directions).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ORDER } from './packages.mjs';

/** Where the hand-written sources live: the acp-kit package (the CLI) and each workspace package. */
export const SOURCE_ROOTS = ['src', ...PACKAGE_ORDER.map((p) => `packages/${p}/src`)];

/**
 * The `.ts` / `.tsx` files under `root` (a folder or a list of them; default: every source root, no
 * `.d.ts`), sorted. `skipWire`: leave out the generated wire types (packages/protocol/src/wire),
 * which no person writes.
 */
export function tsFiles(root = SOURCE_ROOTS, { skipWire = true } = {}) {
  if (Array.isArray(root)) return root.flatMap((r) => tsFiles(r, { skipWire })).sort();
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (!(skipWire && p.endsWith(join('protocol', 'src', 'wire')))) walk(p);
      } else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(root);
  return files.sort();
}

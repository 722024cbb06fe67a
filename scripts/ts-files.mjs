// The hand-written TypeScript sources of a tree, for the scripts that measure src (casts, function
// length, import directions).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The `.ts` / `.tsx` files under `root` (no `.d.ts`), sorted. `skipWire`: leave out the generated
 * wire types (src/protocol/wire), which no person writes.
 */
export function tsFiles(root, { skipWire = true } = {}) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (!(skipWire && p.endsWith(join('protocol', 'wire')))) walk(p);
      } else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(root);
  return files.sort();
}

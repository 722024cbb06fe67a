// Whether dist/ must be built again: missing, or some build input changed after the last build.
// Used by `prepare` (scripts/prepare.mjs: npx and git installs run it in a checkout that is already
// built) and by the tests' global set-up.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest mtime (ms) of the files under `dir` whose names pass `keep`. */
function newestMtime(dir, keep) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const BUILD_SCRIPTS = ['scripts/copy-schemas.mjs', 'scripts/precompile-validators.mjs', 'scripts/bundle.mjs'];

/**
 * True when dist/ is missing or some build input changed after the last build.
 * @param {string} root the checkout
 * @returns {boolean}
 */
export function distIsStale(root) {
  // tsc rewrites every output file on each build, so one output's mtime dates the whole build
  const marker = join(root, 'dist/index.js');
  if (!existsSync(marker) || !existsSync(join(root, 'dist/cli/main.js')) || !existsSync(join(root, 'dist/bundle/cli.js'))) return true;
  if (!existsSync(join(root, 'src'))) return false; // an installed package: nothing to build from
  const built = statSync(marker).mtimeMs;
  const inputs = Math.max(
    newestMtime(join(root, 'src'), (name) => name.endsWith('.ts') || name.endsWith('.tsx') || name.endsWith('.json')),
    statSync(join(root, 'tsconfig.build.json')).mtimeMs,
    statSync(join(root, 'package.json')).mtimeMs,
    // the bundles carry some packages (the chat's terminal UI): a changed lock can change them
    existsSync(join(root, 'package-lock.json')) ? statSync(join(root, 'package-lock.json')).mtimeMs : 0,
    // the build's own steps (schema copy, precompiled validators, bundle) are inputs too
    ...BUILD_SCRIPTS.map((f) => (existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 0)),
  );
  return inputs > built;
}

// Whether dist/ must be built again: missing, or some build input changed after the last build.
// Used by `prepare` (scripts/prepare.mjs: npx and git installs run it in a checkout that is already
// built) and by the tests' global set-up.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ORDER as PACKAGES } from './packages.mjs';

/** Newest mtime (ms) of the files under `dir` whose names pass `keep`. */
function newestMtime(dir, keep) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const BUILD_SCRIPTS = [
  'scripts/build.mjs',
  'scripts/copy-schemas.mjs',
  'scripts/precompile-validators.mjs',
  'scripts/bundle.mjs',
];
const isSource = (name) =>
  name.endsWith('.ts') || name.endsWith('.tsx') || name.endsWith('.json') || name.endsWith('.css');
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/**
 * True when a dist/ is missing (the acp-kit package's or a workspace package's) or some build
 * input changed after the last build.
 * @param {string} root the checkout
 * @returns {boolean}
 */
export function distIsStale(root) {
  // the build writes the acp-kit package last, so its tsc output dates the whole build
  const marker = join(root, 'dist/index.js');
  const outputs = [
    'dist/index.js',
    'dist/cli/main.js',
    'dist/bundle/cli.js',
    ...PACKAGES.map((p) => `packages/${p}/dist/bundle`),
  ];
  if (outputs.some((f) => !existsSync(join(root, f)))) return true;
  if (!existsSync(join(root, 'src'))) return false; // an installed package: nothing to build from
  const built = statSync(marker).mtimeMs;
  const inputs = Math.max(
    newestMtime(join(root, 'src'), isSource),
    ...PACKAGES.map((p) =>
      Math.max(
        newestMtime(join(root, 'packages', p, 'src'), isSource),
        mtime(join(root, 'packages', p, 'package.json')),
        mtime(join(root, 'packages', p, 'tsconfig.json')),
      ),
    ),
    mtime(join(root, 'tsconfig.build.json')),
    mtime(join(root, 'tsconfig.base.json')),
    mtime(join(root, 'package.json')),
    // the bundles carry some packages (the chat's terminal UI): a changed lock can change them
    mtime(join(root, 'package-lock.json')),
    // the build's own steps (schema copy, precompiled validators, bundle) are inputs too
    ...BUILD_SCRIPTS.map((f) => mtime(join(root, f))),
  );
  return inputs > built;
}

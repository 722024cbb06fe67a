#!/usr/bin/env node
// `npm run build [package...]`: the schemas, then for each package in dependency order tsc to its
// dist/ and the bundles of its entry points (scripts/bundle.mjs), the precompiled validators after
// @acp-kit/protocol, and last the acp-kit package itself (its entry points and the CLI bundle).
// Order matters: a package's tsc reads its dependencies' declarations from their dist/.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli, bundleInspectorPage, bundlePackage } from './bundle.mjs';
import { PACKAGE_ORDER } from './packages.mjs';

const root = join(import.meta.dirname, '..');

const node = (script) => execFileSync(process.execPath, [join(root, script)], { cwd: root, stdio: 'inherit' });
const tsc = (project) =>
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
    cwd: root,
    stdio: 'inherit',
  });

const wanted = process.argv.slice(2);
for (const name of wanted)
  if (name !== 'acp-kit' && !PACKAGE_ORDER.includes(name))
    throw new Error(`build: no package "${name}" (packages: ${PACKAGE_ORDER.join(', ')}, acp-kit)`);
const all = wanted.length === 0;

if (all || wanted.includes('protocol')) node('scripts/copy-schemas.mjs');
for (const name of PACKAGE_ORDER) {
  if (!all && !wanted.includes(name)) continue;
  const dir = join(root, 'packages', name);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  tsc(join(dir, 'tsconfig.json'));
  if (name === 'protocol') node('scripts/precompile-validators.mjs');
  await bundlePackage(dir);
  if (name === 'tools') await bundleInspectorPage(dir);
}
if (all || wanted.includes('acp-kit')) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  tsc(join(root, 'tsconfig.build.json'));
  await bundleCli(root);
}

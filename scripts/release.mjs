#!/usr/bin/env node
// Versions move in lockstep: the CLI and the six packages are released together, each depending on the
// others at exactly the same version, so an install never mixes a protocol of one release with a runtime
// of another.
//   node scripts/release.mjs check            versions equal, internal dependencies exact, CHANGELOG has the section
//   node scripts/release.mjs <x.y.z>          sets every version and dates the Unreleased section
// then (docs/releasing.md): npm install --package-lock-only, commit, `git tag -a v<x.y.z>`.
// `--root <dir>` works on another checkout (the tests use a copy).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ORDER } from './packages.mjs';

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

function manifests(root) {
  const files = ['package.json', ...PACKAGE_ORDER.map((p) => join('packages', p, 'package.json'))];
  return files.map((file) => ({ file, json: JSON.parse(readFileSync(join(root, file), 'utf8')) }));
}

function internalDeps(json) {
  return Object.entries(json.dependencies ?? {}).filter(([name]) => name.startsWith('@acp-kit/'));
}

/** What is wrong with the release state of `root` (empty when nothing). */
export function releaseProblems(root) {
  const all = manifests(root);
  const version = all[0].json.version;
  const problems = [];
  for (const { file, json } of all) {
    if (json.version !== version) problems.push(`${file}: version ${json.version}, the root says ${version}`);
    for (const [name, range] of internalDeps(json)) {
      if (range !== version) problems.push(`${file}: depends on ${name} "${range}", expected exactly "${version}"`);
    }
  }
  const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
  const heading = new RegExp(`^## (Unreleased|${version.replace(/\./g, '\\.')}( |$))`, 'm');
  if (!heading.test(changelog)) problems.push(`CHANGELOG.md: no "## Unreleased" or "## ${version}" section`);
  return problems;
}

/** Sets every version to `version` and dates the Unreleased section of the changelog. */
export function setVersion(root, version, date = new Date().toISOString().slice(0, 10)) {
  if (!SEMVER.test(version)) throw new Error(`"${version}" is not a version (x.y.z)`);
  for (const { file, json } of manifests(root)) {
    json.version = version;
    for (const [name] of internalDeps(json)) json.dependencies[name] = version;
    writeFileSync(join(root, file), `${JSON.stringify(json, null, 2)}\n`);
  }
  const path = join(root, 'CHANGELOG.md');
  const changelog = readFileSync(path, 'utf8');
  if (!/^## Unreleased$/m.test(changelog)) throw new Error('CHANGELOG.md has no "## Unreleased" section to release');
  writeFileSync(path, changelog.replace(/^## Unreleased$/m, `## Unreleased\n\n## ${version} (${date})`));
}

function main(argv) {
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? argv[rootAt + 1] : process.cwd();
  const [command] = argv.filter((a, i) => !a.startsWith('--') && (rootAt < 0 || i !== rootAt + 1));
  if (command === 'check' || command === undefined) {
    const problems = releaseProblems(root);
    for (const p of problems) console.error(p);
    if (problems.length > 0) {
      console.error('fix the versions with: node scripts/release.mjs <version>');
      process.exit(1);
    }
    console.log(`versions in lockstep at ${manifests(root)[0].json.version}`);
    return;
  }
  setVersion(root, command);
  console.log(
    `set every package to ${command}; next: npm install --package-lock-only, commit, git tag -a v${command} -m "acp-kit ${command}"`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));

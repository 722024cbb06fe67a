// Issue 25 item 6 (versions and tags): the CLI and the six packages are released in lockstep.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types
import { releaseProblems, setVersion } from '../scripts/release.mjs';
// @ts-expect-error a plain .mjs script without types
import { PACKAGE_ORDER } from '../scripts/packages.mjs';

const root = join(import.meta.dirname, '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the manifests and the changelog: what the release script reads and writes. */
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-release-'));
  dirs.push(dir);
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'CHANGELOG.md'), join(dir, 'CHANGELOG.md'));
  for (const p of PACKAGE_ORDER as string[]) {
    mkdirSync(join(dir, 'packages', p), { recursive: true });
    cpSync(join(root, 'packages', p, 'package.json'), join(dir, 'packages', p, 'package.json'));
  }
  return dir;
}
const read = (dir: string, file: string): { version: string; dependencies?: Record<string, string> } =>
  JSON.parse(readFileSync(join(dir, file), 'utf8'));

describe('release versions in lockstep', () => {
  it('the tree as committed: every package at one version, internal dependencies exact', () => {
    expect(releaseProblems(root)).toEqual([]);
  });

  it('a package depending on another version of a sibling is named', () => {
    const dir = copy();
    const file = join('packages', 'agent', 'package.json');
    const json = read(dir, file);
    writeFileSync(
      join(dir, file),
      JSON.stringify({ ...json, dependencies: { ...json.dependencies, '@acp-kit/protocol': '^0.1.0' } }),
    );
    expect(releaseProblems(dir)).toEqual([
      `${file}: depends on @acp-kit/protocol "^0.1.0", expected exactly "${read(root, 'package.json').version}"`,
    ]);
  });

  it('setting a version moves every package and dependency, and dates the changelog section', () => {
    const dir = copy();
    setVersion(dir, '0.2.0', '2026-11-28');
    expect(releaseProblems(dir)).toEqual([]);
    for (const p of PACKAGE_ORDER as string[]) {
      const json = read(dir, join('packages', p, 'package.json'));
      expect(json.version).toBe('0.2.0');
      for (const [name, range] of Object.entries(json.dependencies ?? {}))
        if (name.startsWith('@acp-kit/')) expect(range).toBe('0.2.0');
    }
    const changelog = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(/^## Unreleased\n\n## 0\.2\.0 \(2026-11-28\)\n/m);
    expect(() => setVersion(dir, 'v0.3')).toThrow('"v0.3" is not a version (x.y.z)');
  });
});

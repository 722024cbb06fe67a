/** The vitest global set-up (test/support/global-setup.ts): when it rebuilds dist/, and how it reports leftovers. */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distIsStale, leftovers } from './support/global-setup.js';
import { tempDir } from './support/temp.js';
// @ts-expect-error -- a plain .mjs script without type declarations
import { PACKAGE_ORDER as PACKAGES } from '../scripts/packages.mjs';

const CLIENT_SOURCE = 'packages/client/src/connection.ts';

function project(): string {
  const root = tempDir('acp-kit-setup-test-');
  mkdirSync(join(root, 'src/agent'), { recursive: true });
  mkdirSync(join(root, 'dist/cli'), { recursive: true });
  mkdirSync(join(root, 'dist/bundle'), { recursive: true });
  for (const p of PACKAGES) mkdirSync(join(root, 'packages', p, 'dist/bundle'), { recursive: true });
  mkdirSync(join(root, 'packages/client/src'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.build.json', 'src/index.ts', 'src/agent/a.ts', CLIENT_SOURCE])
    writeFileSync(join(root, f), '{}');
  for (const f of ['dist/index.js', 'dist/cli/main.js', 'dist/bundle/cli.js']) writeFileSync(join(root, f), '');
  // every input an hour older than the build
  const old = new Date(Date.now() - 3_600_000);
  for (const f of ['package.json', 'tsconfig.build.json', 'src/index.ts', 'src/agent/a.ts', CLIENT_SOURCE])
    utimesSync(join(root, f), old, old);
  return root;
}

describe('global set-up', () => {
  it('the run uses its own TMPDIR', () => {
    expect(tmpdir()).toMatch(/acp-kit-test-run-[A-Za-z0-9]{6}$/);
  });

  it('rebuilds only when dist/ is missing or a source file changed after the build', () => {
    const root = project();
    expect(distIsStale(root)).toBe(false);
    const now = new Date();
    utimesSync(join(root, 'src/agent/a.ts'), now, new Date(Date.now() + 1000));
    expect(distIsStale(root)).toBe(true);
    utimesSync(join(root, 'src/agent/a.ts'), now, new Date(Date.now() - 3_600_000));
    expect(distIsStale(root)).toBe(false);
    utimesSync(join(root, CLIENT_SOURCE), now, new Date(Date.now() + 1000));
    expect(distIsStale(root), 'a workspace package source changed').toBe(true);
    utimesSync(join(root, CLIENT_SOURCE), now, new Date(Date.now() - 3_600_000));
    rmSync(join(root, 'packages/server/dist'), { recursive: true });
    expect(distIsStale(root), 'a workspace package is not built').toBe(true);
    mkdirSync(join(root, 'packages/server/dist/bundle'), { recursive: true });
    expect(distIsStale(root)).toBe(false);
    mkdirSync(join(root, 'scripts'));
    writeFileSync(join(root, 'scripts/bundle.mjs'), '');
    expect(distIsStale(root)).toBe(true);
    const unbuilt = tempDir('acp-kit-setup-test-');
    expect(distIsStale(unbuilt)).toBe(true);
  });

  it('a changed lock file or a missing bundle means stale; an installed copy without src/ is not', () => {
    const root = project();
    writeFileSync(join(root, 'package-lock.json'), '{}');
    utimesSync(join(root, 'package-lock.json'), new Date(), new Date(Date.now() + 1000));
    expect(distIsStale(root)).toBe(true);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, 'package-lock.json'), old, old);
    expect(distIsStale(root)).toBe(false);
    rmSync(join(root, 'dist/bundle/cli.js'));
    expect(distIsStale(root)).toBe(true);
    writeFileSync(join(root, 'dist/bundle/cli.js'), '');
    rmSync(join(root, 'src'), { recursive: true });
    expect(distIsStale(root)).toBe(false);
  });

  it('counts leftover temp entries by name prefix', () => {
    const dir = tempDir('acp-kit-setup-test-');
    for (const name of ['acp-kit-data-a1B2c3', 'acp-kit-data-Zz9yY8', 'acp-kit-agent-test-q1w2e3', 'coding-cli-x9X9x9'])
      mkdirSync(join(dir, name));
    expect(Object.fromEntries(leftovers(dir))).toEqual({ 'acp-kit-data': 2, 'acp-kit-agent-test': 1, 'coding-cli': 1 });
    expect(leftovers(join(dir, 'missing')).size).toBe(0);
  });
});

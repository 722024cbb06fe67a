// The workspace packed as npm would publish it: one tarball per package (acp-kit and every
// @acp-kit/* package), for the tests that install them into an empty app.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { runCommand } from './run-command.js';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface PackedPackage {
  /** `acp-kit`, `@acp-kit/protocol`, ... */
  name: string;
  tarball: string;
  files: string[];
  /** Its `@acp-kit/*` dependencies, from its package.json. */
  workspaceDeps: string[];
}

/** `npm pack` of the root and every workspace into `dir` (dist/ is built already: no `prepare`). */
export async function packWorkspace(dir: string): Promise<Map<string, PackedPackage>> {
  const pack = await runCommand(
    'npm',
    ['pack', '--workspaces', '--include-workspace-root', '--ignore-scripts', '--json', '--pack-destination', dir],
    { cwd: ROOT, timeoutMs: 120_000 },
  );
  expect(pack.status, pack.stderr).toBe(0);
  const infos = JSON.parse(pack.stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
  const packed = new Map<string, PackedPackage>();
  for (const info of infos) {
    const home = info.name === 'acp-kit' ? ROOT : join(ROOT, 'packages', info.name.replace('@acp-kit/', ''));
    const manifest = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const workspaceDeps = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@acp-kit/'));
    packed.set(info.name, {
      name: info.name,
      tarball: join(dir, info.filename),
      files: info.files.map((f) => f.path),
      workspaceDeps,
    });
  }
  return packed;
}

/** The tarballs an install of `name` needs: its own and those of the workspace packages it depends on, transitively. */
export function tarballsFor(packed: Map<string, PackedPackage>, name: string): string[] {
  const out = new Set<string>();
  const visit = (n: string): void => {
    const p = packed.get(n);
    if (!p) throw new Error(`${n} was not packed`);
    if (out.has(p.tarball)) return;
    out.add(p.tarball);
    for (const d of p.workspaceDeps) visit(d);
  };
  visit(name);
  return [...out];
}

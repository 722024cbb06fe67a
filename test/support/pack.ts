// The workspace packed as npm would publish it: one tarball per package (acp-kit and every
// @acp-kit/* package), for the tests that install them into an empty app.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

let shared: Promise<Map<string, PackedPackage>> | undefined;

/**
 * The run's one pack of the workspace, shared by the files that install it (package-types,
 * packages-install, package-install): packing reads ~4 MB of dist/ and costs ~3.5 s of CPU each time.
 * In `$ACP_KIT_PACK_SHARED` (test/support/global-setup.ts, removed at teardown): the first file to ask
 * creates `packing` exclusively and packs, then writes `packed.json` (or `error`); the others, in other
 * forks, wait for one of them. Without the variable (a file run outside the global set-up), packs into `dir`.
 */
export function sharedPack(dir: string): Promise<Map<string, PackedPackage>> {
  const stateDir = process.env.ACP_KIT_PACK_SHARED;
  if (!stateDir) return packWorkspace(dir);
  shared ??= packOnceInRun(stateDir);
  return shared;
}

async function packOnceInRun(stateDir: string, timeoutMs = 180_000): Promise<Map<string, PackedPackage>> {
  mkdirSync(stateDir, { recursive: true });
  const done = join(stateDir, 'packed.json');
  const failed = join(stateDir, 'error');
  let packer = false;
  try {
    closeSync(openSync(join(stateDir, 'packing'), 'wx'));
    packer = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (packer) {
    try {
      const packed = await packWorkspace(stateDir);
      writeAtomic(done, JSON.stringify([...packed.values()]));
      return packed;
    } catch (e) {
      writeAtomic(failed, e instanceof Error ? e.message : String(e));
      throw e;
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(done)) {
      const list = JSON.parse(readFileSync(done, 'utf8')) as PackedPackage[];
      return new Map(list.map((p) => [p.name, p]));
    }
    if (existsSync(failed)) throw new Error(`the run's shared pack failed: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the run's shared pack did not finish within ${timeoutMs} ms`);
    // another fork is packing (seconds): a file in a dir has no portable "wait until created"
    await new Promise((r) => setTimeout(r, 50));
  }
}

function writeAtomic(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
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

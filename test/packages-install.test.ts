// Issue 25 item 1: every workspace package packs and installs alone into an empty app (with the
// @acp-kit/* packages it depends on, nothing from this checkout), and each of its entry points
// loads there. Installs come from the npm cache where they can (`--prefer-offline`): `npm ci` filled
// it with the tarball of every dependency of the lock, but not always with the registry's package
// documents npm needs to resolve a range (a fresh cache after `npm ci` lacked the one of `diff`: `--offline`
// failed ENOTCACHED), which npm then fetches from the registry. Someone who wants only the codecs gets at most
// 3 packages with @acp-kit/protocol.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, sharedPack, tarballsFor, type PackedPackage } from './support/pack.js';
import { runCommand } from './support/run-command.js';
import { tempDir } from './support/temp.js';

/** The ws of this checkout (the version the lock pins for the client and the server). */
const WS_DIR = join(ROOT, 'node_modules', 'ws');
const PACKAGES = [
  '@acp-kit/protocol',
  '@acp-kit/agent',
  '@acp-kit/client',
  '@acp-kit/coding-agent',
  '@acp-kit/server',
  '@acp-kit/tools',
];

/** Installs `name` into a new empty app; returns the app folder and the packages npm placed there. */
async function installAlone(
  packed: Map<string, PackedPackage>,
  name: string,
): Promise<{ app: string; installed: string[] }> {
  const app = tempDir('acp-kit-alone-');
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  const install = await runCommand(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballsFor(packed, name)],
    { cwd: app, timeoutMs: 240_000 },
  );
  expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
  const lock = JSON.parse(readFileSync(join(app, 'node_modules', '.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return {
    app,
    installed: Object.keys(lock.packages)
      .filter((k) => k.startsWith('node_modules/'))
      .map((k) => k.slice('node_modules/'.length)),
  };
}

/**
 * @acp-kit/protocol's app for both of its tests (an install costs ~1.5 s of CPU): installed alone,
 * then its optional peer ws added by hand for the websocket entry, as an app that uses it does
 * (`npm install ws`: ws has no dependencies, so a link to this checkout's copy of the same version is
 * that install). The package count is taken from npm's lock of the install, before ws is added.
 */
let protocolApp: Promise<{ app: string; installed: string[] }> | undefined;
function installProtocol(packed: Map<string, PackedPackage>): Promise<{ app: string; installed: string[] }> {
  protocolApp ??= installAlone(packed, '@acp-kit/protocol');
  return protocolApp;
}

describe('each package installs alone from its tarball', () => {
  let packed = new Map<string, PackedPackage>();
  beforeAll(async () => {
    packed = await sharedPack(tempDir('acp-kit-packs-'));
  }, 180_000);

  it('every package ships its built entry points and no sources or tests', () => {
    expect([...packed.keys()].sort()).toEqual(['acp-kit', ...PACKAGES].sort());
    for (const name of PACKAGES) {
      const p = packed.get(name);
      expect(
        p?.files.some((f) => f.startsWith('dist/bundle/')),
        name,
      ).toBe(true);
      expect(
        p?.files.filter((f) => f.startsWith('src/') || f.startsWith('test/')),
        name,
      ).toEqual([]);
    }
    expect(packed.get('@acp-kit/protocol')?.files).toContain('schema/v2/schema.json');
    expect(packed.get('@acp-kit/protocol')?.files).toContain('dist/validation/precompiled/v2-InitializeRequest.cjs');
  });

  it('@acp-kit/protocol adds at most 3 packages, and validates and encodes there without Ajv', async () => {
    const { app, installed } = await installProtocol(packed);
    expect(installed.length, installed.join(', ')).toBeLessThanOrEqual(3);
    expect(installed).not.toContain('ajv');
    const script = `
      const { getValidator, codecFor } = await import('@acp-kit/protocol');
      const failure = getValidator(2).params('initialize', { protocolVersion: 'two', info: { name: 'x', version: '0' }, capabilities: {} });
      console.log(JSON.stringify({ failure, codec: typeof codecFor(1) }));`;
    const r = await runCommand(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      timeoutMs: 30_000,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      failure: { path: 'protocolVersion', message: 'must be integer' },
      codec: 'object',
    });
  }, 300_000);

  it.each(PACKAGES)(
    '%s installs alone and every entry point of it loads',
    async (name) => {
      // @acp-kit/protocol/websocket needs its optional peer ws (the client and the server depend on it)
      const { app } = name === '@acp-kit/protocol' ? await installProtocol(packed) : await installAlone(packed, name);
      if (name === '@acp-kit/protocol') {
        const ws = join(app, 'node_modules', 'ws');
        expect(existsSync(ws), 'ws is not a dependency of @acp-kit/protocol').toBe(false);
        symlinkSync(WS_DIR, ws, 'dir');
      }
      const manifest = JSON.parse(
        readFileSync(join(ROOT, 'packages', name.replace('@acp-kit/', ''), 'package.json'), 'utf8'),
      ) as { exports: Record<string, unknown> };
      const entries = Object.keys(manifest.exports)
        .filter((e) => e !== './package.json')
        .map((e) => (e === '.' ? name : `${name}/${e.slice(2)}`));
      // every entry loads with its dependencies from the app's node_modules, and exports something
      const script = `const out = {}; for (const e of ${JSON.stringify(entries)}) out[e] = Object.keys(await import(e)).length > 0; console.log(JSON.stringify(out));`;
      const r = await runCommand(process.execPath, ['--input-type=module', '-e', script], {
        cwd: app,
        timeoutMs: 60_000,
      });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual(Object.fromEntries(entries.map((e) => [e, true])));
      expect(existsSync(join(app, 'node_modules', name, 'dist'))).toBe(true);
    },
    300_000,
  );
});

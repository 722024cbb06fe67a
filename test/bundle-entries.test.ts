/**
 * Each workspace package's entry points are bundled (scripts/bundle.mjs -> packages/<name>/dist/bundle/,
 * for start-up); the acp-kit package's entry points re-export them. A bundle must behave like the per-file build: one instance of each class across entries (code
 * splitting), and the lookups relative to a module's own file (`import.meta.url`: the schema
 * folder, the precompiled validators, package.json, bin/) still find their files. Each check runs
 * in a fresh process that imports the package by name, as an app does. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without type declarations
import { PACKAGE_ORDER as PACKAGES } from '../scripts/packages.mjs';

const ROOT = resolve('.');
const packageJson = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string; types?: string }>;
    dependencies: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };

/** Runs an ESM script in a fresh node process at the package root; returns its stdout parsed as JSON. */
function runScript(script: string): unknown {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('bundled entry points (dist/bundle)', () => {
  it("each package's exports load its bundle; acp-kit's entry points only re-export packages; bin loads the CLI bundle", () => {
    for (const name of PACKAGES) {
      const pkg = packageJson(join(ROOT, 'packages', name));
      const imports = Object.entries(pkg.exports)
        .filter(([k]) => k !== './package.json')
        .map(([, v]) => (typeof v === 'string' ? v : v.import));
      expect(imports.length, name).toBeGreaterThan(0);
      expect(
        imports.filter((p) => !p?.startsWith('./dist/bundle/')),
        name,
      ).toEqual([]);
    }
    const root = packageJson(ROOT);
    for (const [key, target] of Object.entries(root.exports)) {
      if (typeof target === 'string') continue;
      const code = readFileSync(join(ROOT, target.import ?? ''), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
      const statements = code.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('//'));
      expect(
        statements.filter((l) => !/^export \* from '@acp-kit\/[a-z-]+(\/[a-z]+)?';$/.test(l)),
        key,
      ).toEqual([]);
    }
    expect(readFileSync('bin/acp-kit.js', 'utf8')).toContain("'dist', 'bundle', 'cli.js'");
  });

  it('classes are one instance across entries: instanceof AcpError holds across acp-kit/client, /rpc, /protocol and acp-kit', () => {
    const out = runScript(`
      const root = await import('acp-kit');
      const protocol = await import('acp-kit/protocol');
      const rpc = await import('acp-kit/rpc');
      const client = await import('acp-kit/client');
      const agent = await import('acp-kit/agent');
      const coding = await import('acp-kit/agent/coding');
      const closed = new client.ConnectionClosedError({ reason: 'test' });
      console.log(JSON.stringify({
        acpError: root.AcpError === protocol.AcpError,
        closedIsAcpError: closed instanceof protocol.AcpError && closed instanceof rpc.ConnectionClosedError,
        sessionState: client.SessionState === protocol.SessionState,
        peer: root.JsonRpcPeer === rpc.JsonRpcPeer,
        store: typeof agent.InMemorySessionStore === 'function' && typeof coding.createCodingAgent === 'function',
      }));
    `);
    expect(out).toEqual({ acpError: true, closedIsAcpError: true, sessionState: true, peer: true, store: true });
  });

  it('the bundled validator uses the precompiled validators (no Ajv) and finds the schema folder at the package root', () => {
    const out = runScript(`
      import { createRequire } from 'node:module';
      const { getValidator, schemaLocation, loadSchema } = await import('acp-kit/protocol');
      const init = { protocolVersion: 2, info: { name: 'x', version: '0' }, capabilities: {} };
      const failure = getValidator(2).params('initialize', { ...init, protocolVersion: 'two' });
      const valid = getValidator(2).params('initialize', init);
      const ajvLoaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/ajv/'));
      console.log(JSON.stringify({ failure, valid, ajvLoaded, schema: schemaLocation(2), hasDefs: typeof loadSchema(1).$defs }));
    `);
    expect(out).toEqual({
      failure: { path: 'protocolVersion', message: 'must be integer' },
      valid: null,
      ajvLoaded: false,
      schema: resolve(ROOT, 'packages/protocol/schema/v2/schema.json'),
      hasDefs: 'object',
    });
  });

  it('the bundled CLI reads its version from package.json and starts the built-in agent from bin/', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const v = spawnSync(process.execPath, ['bin/acp-kit.js', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(v.stdout.trim()).toBe(pkg.version);
    // `run` without --agent spawns bin/acp-kit.js agent, found relative to the CLI module
    const r = spawnSync(process.execPath, ['bin/acp-kit.js', 'run', '--json', '--model', 'demo', 'hello'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as {
      stopReason?: string;
      agent?: { name?: string };
    };
    expect(last.stopReason).toBe('end_turn');
  });

  it("the CLI bundle carries the chat's terminal UI (no ink, React or Markdown renderer left for node_modules, React's production build)", () => {
    const dir = join(ROOT, 'dist', 'bundle');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const cli = readdirSync(dir)
      .filter((f) => /^cli.*\.js$/.test(f))
      .map(read)
      .join('\n');
    const specifiers = (code: string) =>
      [...code.matchAll(/\bfrom "([^"]+)"|\bimport\("([^"]+)"\)/g)].map((m) => m[1] ?? m[2]!);
    const ui = /^(ink|react|react-reconciler|marked|marked-terminal|yoga-layout|cli-highlight|highlight\.js)(\/|$)/;
    expect(specifiers(cli).filter((s) => ui.test(s))).toEqual([]);
    expect(cli).toContain('node_modules/react/cjs/react.production.js');
    expect(cli).not.toContain('react.development.js');
    // the packages' bundles still load their dependencies from node_modules (only the CLI is an app)
    const protocol = join(ROOT, 'packages', 'protocol', 'dist', 'bundle');
    const library = readdirSync(protocol)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(protocol, f), 'utf8'))
      .join('\n');
    expect(specifiers(library)).toContain('ws');
  });

  it.each(['acp-kit', ...PACKAGES])(
    'every package a bundle of %s imports is its dependency; what the CLI bundle carries is not',
    (name) => {
      const home = name === 'acp-kit' ? ROOT : join(ROOT, 'packages', name);
      const dir = join(home, 'dist', 'bundle');
      const pkg = packageJson(home);
      const packageOf = (s: string) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!);
      const imported = new Set<string>();
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
        // esbuild's output: one static import per line, dynamic imports anywhere (require() inside
        // bundled CommonJS packages stays as written: ws's optional native add-ons, in a try)
        for (const m of readFileSync(join(dir, f), 'utf8').matchAll(
          /^(?:import|export)\b[^;]*?\bfrom "([^"]+)";$|^import "([^"]+)";$|\bimport\("([^"]+)"\)/gm,
        )) {
          const s = (m[1] ?? m[2] ?? m[3])!;
          if (!s.startsWith('node:') && !s.startsWith('.')) imported.add(packageOf(s));
        }
      }
      expect(imported.size).toBeGreaterThan(0);
      // an optional peer (ws, ajv of @acp-kit/protocol) is loaded only by the code that needs it
      expect([...imported].filter((p) => !(p in pkg.dependencies) && !(p in (pkg.peerDependencies ?? {})))).toEqual([]);
      if (name !== 'acp-kit') return;
      for (const ui of ['ink', 'react', 'marked', 'marked-terminal']) {
        expect(pkg.dependencies[ui], `${ui} is bundled into the CLI`).toBeUndefined();
        expect(pkg.devDependencies?.[ui], `${ui} is needed to build`).toBeDefined();
      }
    },
  );
});

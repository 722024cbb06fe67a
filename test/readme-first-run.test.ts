// Issue 23 item 9: the README's first run in a fresh checkout. A copy of this working tree gets
// `npm ci` (which runs `prepare`; production dependencies only, see below); then the README's main-job command and its editor command (the Zed
// `agent_servers` entry) run for the first time with a fresh HOME and npm cache, as a new user's shell
// and an editor would. Neither may build again: `npx acp-kit` in the checkout installs the checkout
// into npx's cache and runs `prepare` (12-30 s) before the first answer.
// The copy gets this tree's dist/ (fresh: the global set-up built it) before `npm ci`, so `prepare`
// finds it up to date instead of building the seven packages a second time in this run (a minute of
// both cores); that `prepare` builds when dist/ is missing or stale is test/test-global-setup.test.ts
// (distIsStale), and CI's own `npm ci` in a clean clone is that build.
// Asserted on behaviour: `npm ci` ran `prepare`, dist/ not rewritten, no `prepare` output at first use,
// nothing installed into the fresh npm cache, the run finished and the editor command answered initialize.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without type declarations
import { PACKAGE_ORDER } from '../scripts/packages.mjs';
import { runCommand } from './support/run-command.js';

const ROOT = resolve('.');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The command of the README's "Set up" block marked as the main job. */
function mainJobCommand(): string {
  const block = /## Set up\n+```sh\n([\s\S]*?)^```$/m.exec(README)?.[1] ?? '';
  const line = block.split('\n').find((l) => l.includes('# the main job'));
  expect(line, 'the Set up block has a line marked "# the main job"').toBeDefined();
  return (line ?? '').replace(/#.*$/, '').trim();
}

/** The README's Zed entry that starts `acp-kit agent` (command and args). */
function editorCommand(checkout: string): { command: string; args: string[] } {
  for (const m of README.matchAll(/^```json\n([\s\S]*?)^```$/gm)) {
    const servers =
      (JSON.parse(m[1] ?? '{}') as { agent_servers?: Record<string, { command: string; args?: string[] }> })
        .agent_servers ?? {};
    for (const s of Object.values(servers)) {
      const args = (s.args ?? []).map((a) => a.replaceAll('/path/to/acp-kit', checkout));
      if (args.includes('agent') && !args.includes('proxy'))
        return { command: s.command.replaceAll('/path/to/acp-kit', checkout), args };
    }
  }
  throw new Error('README.md has no agent_servers entry that starts acp-kit agent');
}

/** mtimes of every file under dist/bundle (what a rebuild rewrites). */
function bundleTimes(checkout: string): Record<string, number> {
  const dir = join(checkout, 'dist', 'bundle');
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => [f, statSync(join(dir, f)).mtimeMs]),
  );
}

/** A first-time user's environment: fresh HOME and npm cache, no update check (no network). */
function freshEnv(base: string, name: string): NodeJS.ProcessEnv {
  const home = join(base, `${name}-home`);
  const cache = join(base, `${name}-npm-cache`);
  mkdirSync(home, { recursive: true });
  mkdirSync(cache, { recursive: true });
  return {
    ...process.env,
    HOME: home,
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
    ACP_KIT_DATA_DIR: join(base, `${name}-data`),
  };
}

describe('README first run after npm ci (fresh HOME and npm cache)', () => {
  let base = '';
  let checkout = '';
  let before: Record<string, number> = {};

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'acp-kit-first-run-'));
    checkout = join(base, 'acp-kit');
    mkdirSync(checkout);
    // the working tree as a clone of it would have it (tracked and new files, no node_modules), plus
    // the built dist/ folders; tar keeps the mtimes, which `prepare` compares
    const files = await runCommand('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      timeoutMs: 60_000,
    });
    expect(files.status, files.stderr).toBe(0);
    const built = ['dist', ...(PACKAGE_ORDER as string[]).map((p) => `packages/${p}/dist`)];
    for (const d of built) expect(existsSync(join(ROOT, d, 'bundle')), `${d}: run \`npm run build\``).toBe(true);
    const present = [...files.stdout.split('\0').filter((f) => f && existsSync(join(ROOT, f))), ...built];
    const copy = await runCommand('sh', ['-c', `tar -cf - --null -T - | tar -xf - -C ${JSON.stringify(checkout)}`], {
      cwd: ROOT,
      input: present.join('\0'),
      timeoutMs: 120_000,
    });
    expect(copy.status, copy.stderr).toBe(0);
    before = bundleTimes(checkout);
    expect(Object.keys(before)).toContain('cli.js');
    // `--omit=dev`: the production dependencies only (139 packages instead of 432, ~5 CPU-s instead
    // of ~20). What this test proves is what happens after `npm ci` (its `prepare`, then the first
    // runs), and those need no devDependency: with them absent, a first run that reached for one (or a
    // `prepare` that built again: no esbuild) fails here instead of passing. The full `npm ci` of the
    // README is what made the tree this suite runs in: it cannot run without one that succeeded.
    const ci = await runCommand('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--omit=dev'], {
      cwd: checkout,
      timeoutMs: 450_000,
    });
    const output = `${ci.stdout}\n${ci.stderr}`;
    expect(ci.status, output).toBe(0);
    expect(output, 'npm ci runs `prepare`').toMatch(/> acp-kit@[^ ]+ prepare/);
    expect(bundleTimes(checkout), `prepare built an up-to-date dist/ again:\n${output}`).toEqual(before);
  }, 480_000);
  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('the main job runs without building again', async () => {
    // the README's session folder (/tmp/demo), moved into this run's own folder
    const demo = join(base, 'demo');
    const command = mainJobCommand().replaceAll('/tmp/demo', demo);
    expect(command).toContain(demo);
    expect(README).toContain('mkdir -p /tmp/demo');
    mkdirSync(demo); // the README's line before the main job
    const env = freshEnv(base, 'run');
    const r = await runCommand('sh', ['-c', command], { cwd: checkout, env, timeoutMs: 120_000 });
    const output = `${r.stdout}\n${r.stderr}`;
    expect(r.status, output).toBe(0);
    expect(readFileSync(join(demo, 'hello.txt'), 'utf8').trim()).toBe('hi');
    expect(output).not.toMatch(/> acp-kit@[^ ]+ (prepare|build)/);
    expect(bundleTimes(checkout)).toEqual(before);
    expect(existsSync(join(env.npm_config_cache!, '_npx')), 'nothing installed into the npm cache').toBe(false);
  }, 150_000);

  it('the editor command answers initialize without building again', async () => {
    const { command, args } = editorCommand(checkout);
    const env = freshEnv(base, 'editor');
    const editorCwd = join(base, 'editor-project');
    mkdirSync(editorCwd);
    const child = spawn(command, args, { cwd: editorCwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const first = new Promise<string>((done, fail) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const nl = out.indexOf('\n');
        if (nl !== -1) done(out.slice(0, nl));
      });
      child.on('close', (code) =>
        fail(new Error(`the editor command exited (${code}) before answering\nstdout: ${out}\nstderr: ${stderr}`)),
      );
    });
    child.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }) + '\n',
    );
    try {
      const answer = JSON.parse(await first) as { id: number; result?: { protocolVersion: number } };
      expect(answer).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    } finally {
      child.stdin.end();
      child.kill();
    }
    expect(stderr).not.toMatch(/> acp-kit@[^ ]+ (prepare|build)/);
    expect(bundleTimes(checkout)).toEqual(before);
    expect(existsSync(join(env.npm_config_cache!, '_npx')), 'nothing installed into the npm cache').toBe(false);
  }, 150_000);

  it('npx acp-kit in the checkout (the habit of many) installs the link but does not build again', async () => {
    const env = freshEnv(base, 'npx');
    const r = await runCommand('npx', ['acp-kit', '--version'], { cwd: checkout, env, timeoutMs: 120_000 });
    const output = `${r.stdout}\n${r.stderr}`;
    expect(r.status, output).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(output).not.toMatch(/> acp-kit@[^ ]+ (prepare|build)/);
    expect(bundleTimes(checkout)).toEqual(before);
  }, 150_000);
});

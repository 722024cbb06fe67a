// The install story of README.md, end to end: `npm pack` the package, unpack the tarball into a
// fresh app's node_modules (its dependencies linked from this checkout, no network), compile the
// README's TypeScript agent and client there with tsc, and run the client against the agent over
// real stdio pipes. Proves the tarball carries everything an app needs (dist, schemas, precompiled
// validators, bin) and that the README programs work as they stand. Needs `npm run build`.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPack } from './support/pack.js';

const ROOT = resolve('.');
const TSC = join(ROOT, 'node_modules', 'typescript', 'lib', 'tsc.js');

/** The README ts block that contains `marker`. */
function readmeBlock(marker: string): string {
  const blocks = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(
    (m) => m[1],
  );
  const found = blocks.filter((b) => b.includes(marker));
  expect(found, `exactly one ts block of README.md contains ${marker}`).toHaveLength(1);
  return found[0];
}

describe('README install story: npm pack -> install into an app -> the README agent and client run', () => {
  let dir = '';
  let app = '';

  beforeAll(() => {
    expect(existsSync(join(ROOT, 'dist', 'index.js')), 'run `npm run build` first').toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-pack-'));
    app = join(dir, 'app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs, installs, compiles and runs', async () => {
    // the acp-kit tarball of the run's one pack (dist/ is already built: no `prepare`)
    const info = (await sharedPack(dir)).get('acp-kit');
    expect(info, 'acp-kit was packed').toBeDefined();
    const files = info?.files ?? [];
    expect(files).toContain('dist/entries/agent.js'); // `acp-kit/agent`: @acp-kit/agent + the PostgreSQL store
    expect(files).toContain('dist/bundle/cli.js'); // what bin/acp-kit.js loads (start-up)
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('packages/'))).toBe(false);

    // install: unpack as node_modules/acp-kit; its dependencies are linked from this checkout (offline)
    const untar = spawnSync('tar', ['-xzf', info?.tarball ?? '', '-C', dir], { encoding: 'utf8' });
    expect(untar.status, untar.stderr).toBe(0);
    renameSync(join(dir, 'package'), join(app, 'node_modules', 'acp-kit'));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies)) {
      mkdirSync(join(app, 'node_modules', dep, '..'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
    }
    symlinkSync(join(ROOT, 'node_modules', '@types'), join(app, 'node_modules', '@types'), 'dir');

    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
    writeFileSync(join(app, 'agent.ts'), readmeBlock('runAgentOnStdio('));
    writeFileSync(join(app, 'client.ts'), readmeBlock('await connect('));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          skipLibCheck: true,
          outDir: '.',
        },
        files: ['agent.ts', 'client.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe('');
    expect(tsc.status).toBe(0);

    // `node client.js` starts `node agent.js` (the README's default) over real stdio pipes
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const child = spawn(process.execPath, ['client.js'], {
        cwd: app,
        env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`client.js did not exit within 30 s\nstdout: ${stdout}\nstderr: ${stderr}`));
      }, 30_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, stdout, stderr });
      });
    });
    expect(run.code, run.stderr).toBe(0);
    // approveAll picked the allow option, so the agent shouted; the client printed the narrowed chunk
    expect(run.stdout).toMatch(/^\[[^\]]+\] HELLO FROM THE CLIENT$/m);
    expect(run.stdout).toMatch(/^protocol v2, stop reason: end_turn$/m);
  }, 180_000);
});

/**
 * File sandboxes against symlink escapes and check-then-open races, on real files and real
 * symlinks: the coding agent's `Sandbox` (tools' local disk access) and the client's
 * `FileSystemSandbox` (`fs/read_text_file`, `fs/write_text_file`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCodingAgent,
  createDemoModel,
  Sandbox,
  SandboxError,
} from '../packages/coding-agent/src/coding-agent.js';
import { FileSystemSandbox } from '../packages/client/src/services/index.js';
import { AcpError } from '../packages/protocol/src/errors.js';
import { ConfinementError, writeConfined } from '../packages/protocol/src/node/confined-fs.js';
import { walkFiles } from '../packages/coding-agent/src/tools/walk.js';
import { answer, startHarness, type Harness } from './fixtures/coding-harness.js';
import { fixture } from './support/raw-child.js';
import { alive, waitUntil } from './support/process.js';

const SECRET = 'TOP SECRET';
const dirs: string[] = [];
const children: ChildProcess[] = [];
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const c of children.splice(0)) {
    c.kill('SIGKILL');
    if (c.pid !== undefined) await waitUntil(() => !alive(c.pid!), 5000, `swapper ${c.pid} exited`);
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function layout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'acp-confine-')));
  dirs.push(base);
  const root = join(base, 'project');
  const outside = join(base, 'out');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  return { base, root, outside };
}

describe('dangling symlinks that leave the roots (issue 7.12)', () => {
  it('the built-in agent refuses to create a file through cwd/notes.txt -> ../out/new.txt, even when approved', async () => {
    const { root, outside } = layout();
    symlinkSync('../out/new.txt', join(root, 'notes.txt'));
    h = await startHarness({
      version: 1,
      cwd: root,
      agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }) }),
      permission: answer('allow_once'),
    });
    const r = await h.turn('create notes.txt containing pwned');
    const final = r.updates.filter((u) => u.sessionUpdate === 'tool_call_update').at(-1)!;
    expect(final.status).toBe('failed');
    expect(JSON.stringify(final.content)).toContain(
      `path ${join(root, 'notes.txt')} (resolves to ${join(outside, 'new.txt')}) is outside the session roots`,
    );
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('Sandbox.resolve judges a dangling link by its target; links that stay inside still work', async () => {
    const { root, outside } = layout();
    symlinkSync('../out/new.txt', join(root, 'notes.txt'));
    symlinkSync('created-later.txt', join(root, 'inner.txt'));
    const sb = new Sandbox(root);
    await expect(sb.resolve('notes.txt')).rejects.toThrow(
      new SandboxError(
        `path ${join(root, 'notes.txt')} (resolves to ${join(outside, 'new.txt')}) is outside the session roots: ${root}`,
      ),
    );
    const inner = await sb.resolve('inner.txt');
    expect(inner.real).toBe(join(root, 'created-later.txt'));
    await sb.writeFile(inner, 'hello');
    expect(readFileSync(join(root, 'created-later.txt'), 'utf8')).toBe('hello');
  });

  it('the verified write refuses a dangling link to outside even without the path check', async () => {
    const { root, outside } = layout();
    symlinkSync(join(outside, 'new.txt'), join(root, 'notes.txt'));
    symlinkSync(outside, join(root, 'outdir'));
    const err = await writeConfined(join(root, 'notes.txt'), 'pwned', [root]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfinementError);
    expect((err as ConfinementError).real).toBe(outside);
    await expect(
      writeConfined(join(root, 'outdir', 'sub', 'x.txt'), 'pwned', [root], { mkdirs: true }),
    ).rejects.toBeInstanceOf(ConfinementError);
    await expect(writeConfined(join(root, 'outdir', 'secret.txt'), 'pwned', [root])).rejects.toBeInstanceOf(
      ConfinementError,
    );
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });
});

/** Starts the swapper child (real process) and waits until it has flipped both paths once. */
async function startSwapper(root: string, outside: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture('path-swapper.mjs'), root, outside], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`swapper exited early with ${code}`)));
  });
  return child;
}

/** Runs `n` operations, `width` at a time; returns the results of the ones that succeeded. */
async function hammer<T>(
  n: number,
  width: number,
  op: (i: number) => Promise<T>,
): Promise<{ ok: T[]; failed: number }> {
  const ok: T[] = [];
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        try {
          ok.push(await op(i));
        } catch {
          failed++;
        }
      }
    }),
  );
  return { ok, failed };
}

function expectOutsideUntouched(outside: string): void {
  expect(readdirSync(outside)).toEqual(['secret.txt']);
  expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
}

describe('check-then-open races: a real process swaps paths for symlinks to outside (issue 7.13)', () => {
  it('agent sandbox: no outside content read, nothing written outside', async () => {
    const { root, outside } = layout();
    const swapper = await startSwapper(root, outside);
    const sb = new Sandbox(root);
    const reads = await hammer(600, 8, async (i) => {
      const p = await sb.resolve(i % 2 ? 'f.txt' : 'd/f.txt');
      return (await sb.readFile(p, 1 << 20)).toString('utf8');
    });
    const writes = await hammer(600, 8, async (i) => {
      const p = await sb.resolve(['f.txt', 'd/f.txt', `d/new-${i}.txt`, `d/sub-${i}/x.txt`][i % 4]);
      await sb.writeFile(p, 'WRITTEN');
    });
    expect(reads.ok.filter((t) => t !== 'INSIDE')).toEqual([]);
    expect(reads.ok.length).toBeGreaterThan(0);
    expect(writes.ok.length + writes.failed).toBe(600);
    expectOutsideUntouched(outside);
    expect(alive(swapper.pid!)).toBe(true); // the swapping ran during all operations
  });

  it('agent listings (list_files, search_text walk): no outside names listed', async () => {
    const { root, outside } = layout();
    const swapper = await startSwapper(root, outside);
    const sb = new Sandbox(root);
    const listings = await hammer(3000, 8, async () => {
      const dir = await sb.resolve('d');
      const names: string[] = [];
      for await (const e of walkFiles(dir.real, undefined, (d) => sb.readdir(d))) names.push(e.rel);
      return names;
    });
    expect(listings.ok.flat().filter((n) => n.includes('secret'))).toEqual([]);
    expect(listings.ok.length).toBeGreaterThan(0);
    expect(alive(swapper.pid!)).toBe(true);
  });

  it('client fs/* sandbox: no outside content read, nothing written outside', async () => {
    const { root, outside } = layout();
    const swapper = await startSwapper(root, outside);
    const sb = FileSystemSandbox.forSession({ cwd: root });
    const reads = await hammer(
      2000,
      8,
      async (i) => (await sb.readTextFile({ path: join(root, i % 2 ? 'f.txt' : 'd/f.txt') })).content,
    );
    const writes = await hammer(1000, 8, async (i) => {
      await sb.writeTextFile({
        path: join(root, ['f.txt', 'd/f.txt', `d/new-${i}.txt`, `d/sub-${i}/x.txt`][i % 4]),
        content: 'WRITTEN',
      });
    });
    expect(reads.ok.filter((t) => t !== 'INSIDE')).toEqual([]);
    expect(reads.ok.length).toBeGreaterThan(0);
    expect(writes.ok.length + writes.failed).toBe(1000);
    expectOutsideUntouched(outside);
    expect(alive(swapper.pid!)).toBe(true);
  });
});

describe('bad paths are invalid params, not internal errors (issue 7.20)', () => {
  it('a 100 KB fs/read_text_file path answers -32602 naming params.path', async () => {
    const { root } = layout();
    const sb = FileSystemSandbox.forSession({ cwd: root });
    const long = join(root, 'a'.repeat(100 * 1024));
    // thunks: each call starts only when awaited (an eager array left later rejections unhandled)
    for (const call of [
      () => sb.readTextFile({ path: long }),
      () => sb.writeTextFile({ path: long, content: 'x' }),
      () => sb.readTextFile({ path: join(root, 'x'.repeat(300)) }),
    ]) {
      const e = await call().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(AcpError);
      expect((e as AcpError).code).toBe(-32602);
      expect((e as AcpError).message).toMatch(
        /params\.path: must be a path the file system accepts; .* too long \(ENAMETOOLONG\)/,
      );
    }
  });

  it('the agent sandbox names an over-long path as such', async () => {
    const { root } = layout();
    await expect(new Sandbox(root).resolve('b'.repeat(100 * 1024))).rejects.toThrow(
      /path is too long \(\d+ characters\)/,
    );
  });
});

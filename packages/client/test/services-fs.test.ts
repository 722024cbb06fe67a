import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcpError } from '../../protocol/src/errors.js';
import { FileSystemSandbox } from '../src/services/index.js';

let base: string;
let root: string;
let extra: string;
let outside: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'acp-fs-')));
  root = path.join(base, 'proj');
  extra = path.join(base, 'extra');
  outside = path.join(base, 'outside');
  for (const d of [root, extra, outside]) mkdirSync(d);
  writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\nthree\nfour\n');
  writeFileSync(path.join(root, 'noeol.txt'), 'x\ny');
  writeFileSync(path.join(extra, 'e.txt'), 'extra');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
  symlinkSync(outside, path.join(root, 'outdir'));
  symlinkSync(path.join(outside, 'created-by-agent.txt'), path.join(root, 'dangling.txt'));
  symlinkSync(path.join(root, 'a.txt'), path.join(root, 'inner-link.txt'));
  // a symlink to the root from outside: reads through it are inside after resolution
  symlinkSync(root, path.join(base, 'proj-alias'));
  symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
  symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function rejection(p: Promise<unknown>): Promise<AcpError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AcpError);
  return e as AcpError;
}

describe('FileSystemSandbox confinement (ACP-V1-FS-05, ACP-ALL-SESS-04)', () => {
  const sb = () => FileSystemSandbox.forSession({ cwd: root, additionalDirectories: [extra] });

  it('reads files in cwd and in additionalDirectories', async () => {
    expect(await sb().readTextFile({ path: path.join(root, 'a.txt') })).toEqual({ content: 'one\ntwo\nthree\nfour\n' });
    expect(await sb().readTextFile({ path: path.join(extra, 'e.txt') })).toEqual({ content: 'extra' });
  });

  it('refuses a relative path naming params.path (ACP-ALL-RPC-07)', async () => {
    const e = await rejection(sb().readTextFile({ path: 'a.txt' }));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('params.path');
    expect(e.message).toContain('absolute');
  });

  it('refuses an absolute path outside the roots', async () => {
    const e = await rejection(sb().readTextFile({ path: '/etc/passwd' }));
    expect(e.code).toBe(-32602);
    expect(e.message).toBe(`Invalid params: params.path /etc/passwd is outside the session roots (${root}, ${extra})`);
  });

  it('refuses .. escapes', async () => {
    const p = `${root}/../outside/secret.txt`;
    const e = await rejection(sb().readTextFile({ path: p }));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('outside the session roots');
    await rejection(sb().writeTextFile({ path: `${root}/sub/../../outside/new.txt`, content: 'x' }));
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  it('allows .. that stays inside', async () => {
    expect((await sb().readTextFile({ path: `${root}/sub/../a.txt` })).content).toContain('one');
  });

  it('refuses a symlink inside that points outside (file and directory)', async () => {
    const e = await rejection(sb().readTextFile({ path: path.join(root, 'leak.txt') }));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain(`resolves to ${path.join(outside, 'secret.txt')}`);
    await rejection(sb().readTextFile({ path: path.join(root, 'outdir', 'secret.txt') }));
    await rejection(sb().writeTextFile({ path: path.join(root, 'outdir', 'new.txt'), content: 'x' }));
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  it('refuses writing through a dangling symlink that points outside', async () => {
    const e = await rejection(sb().writeTextFile({ path: path.join(root, 'dangling.txt'), content: 'pwned' }));
    expect(e.code).toBe(-32602);
    expect(existsSync(path.join(outside, 'created-by-agent.txt'))).toBe(false);
  });

  it('follows symlinks that stay inside, and accepts aliases of the root', async () => {
    expect((await sb().readTextFile({ path: path.join(root, 'inner-link.txt') })).content).toContain('two');
    expect((await sb().readTextFile({ path: path.join(base, 'proj-alias', 'a.txt') })).content).toContain('three');
  });

  it('answers -32002 naming the path for a missing file', async () => {
    const p = path.join(root, 'missing.txt');
    const e = await rejection(sb().readTextFile({ path: p }));
    expect(e.code).toBe(-32002);
    expect(e.message).toBe(`Resource not found: ${p}`);
    expect(e.data).toEqual({ path: p });
  });

  it('refuses a directory with -32602', async () => {
    const e = await rejection(sb().readTextFile({ path: root }));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('is a directory');
  });

  it('rejects bad line/limit types naming the field', async () => {
    const e = await rejection(sb().readTextFile({ path: path.join(root, 'a.txt'), line: -1 }));
    expect(e.message).toContain('params.line');
    const e2 = await rejection(sb().readTextFile({ path: path.join(root, 'a.txt'), limit: 1.5 }));
    expect(e2.message).toContain('params.limit');
  });

  it('refuses symlink loops with -32602 instead of hanging', async () => {
    const e = await rejection(sb().writeTextFile({ path: path.join(root, 'loop-a'), content: 'x' }));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('symbolic links');
  });

  it('refuses files above maxReadBytes', async () => {
    const e = await rejection(
      new FileSystemSandbox([root], { maxReadBytes: 4 }).readTextFile({ path: path.join(root, 'a.txt') }),
    );
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('too large');
  });

  it('requires at least one absolute root', () => {
    expect(() => new FileSystemSandbox([])).toThrow(TypeError);
    expect(() => new FileSystemSandbox(['relative'])).toThrow(TypeError);
  });
});

describe('readTextFile line/limit (ACP-V1-FS-03)', () => {
  const sb = () => new FileSystemSandbox([root]);
  const file = () => path.join(root, 'a.txt');

  it('line is the 1-based first line, limit the max line count', async () => {
    expect((await sb().readTextFile({ path: file(), line: 2, limit: 2 })).content).toBe('two\nthree\n');
    expect((await sb().readTextFile({ path: file(), line: 3 })).content).toBe('three\nfour\n');
    expect((await sb().readTextFile({ path: file(), limit: 1 })).content).toBe('one\n');
    expect((await sb().readTextFile({ path: file(), line: 1, limit: 0 })).content).toBe('');
    expect((await sb().readTextFile({ path: file(), line: 99 })).content).toBe('');
    expect((await sb().readTextFile({ path: file(), line: null, limit: null })).content).toBe(
      'one\ntwo\nthree\nfour\n',
    );
  });

  it('handles a last line without newline', async () => {
    expect((await sb().readTextFile({ path: path.join(root, 'noeol.txt'), line: 2, limit: 5 })).content).toBe('y');
  });

  it('serves unsaved editor buffers from readOverride', async () => {
    const seen: string[] = [];
    const s = new FileSystemSandbox([root], {
      readOverride: (p) => {
        seen.push(p);
        return p.endsWith('a.txt') ? 'buffer1\nbuffer2\n' : undefined;
      },
    });
    expect((await s.readTextFile({ path: file(), line: 2 })).content).toBe('buffer2\n');
    expect((await s.readTextFile({ path: path.join(root, 'noeol.txt') })).content).toBe('x\ny');
    expect(seen).toEqual([file(), path.join(root, 'noeol.txt')]);
    // the overlay never bypasses the sandbox
    await rejection(s.readTextFile({ path: path.join(outside, 'a.txt') }));
  });
});

describe('writeTextFile (ACP-V1-FS-04)', () => {
  it('creates the file and missing parent directories inside the roots, returns {}', async () => {
    const p = path.join(root, 'new', 'deep', 'file.txt');
    const writes: string[] = [];
    const s = new FileSystemSandbox([root], { onWrite: (w) => writes.push(w) });
    expect(await s.writeTextFile({ path: p, content: 'héllo\n' })).toEqual({});
    expect(readFileSync(p, 'utf8')).toBe('héllo\n');
    expect(writes).toEqual([p]);
    await s.writeTextFile({ path: p, content: 'replaced' });
    expect(readFileSync(p, 'utf8')).toBe('replaced');
    expect((await s.readTextFile({ path: p })).content).toBe('replaced');
  });

  it('rejects non-string content naming params.content', async () => {
    const e = await rejection(
      new FileSystemSandbox([root]).writeTextFile({ path: path.join(root, 'x.txt'), content: 5 as unknown as string }),
    );
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('params.content');
  });

  it('refuses to write to a relative path', async () => {
    const e = await rejection(new FileSystemSandbox([root]).writeTextFile({ path: 'x.txt', content: '' }));
    expect(e.message).toContain('params.path');
  });
});

/**
 * The coding agent's file sandbox (session cwd + additionalDirectories) and the read-side tools.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodingAgent, createDemoModel, Sandbox, SandboxError } from '../src/coding-agent.js';
import { globToRegExp } from '../src/tools/walk.js';
import { answer, chunkText, startHarness, type Harness, type Wire } from '../../../test/fixtures/coding-harness.js';
import { tempDir } from '../../../test/support/temp.js';

function layout() {
  const base = realpathSync(tempDir('coding-sandbox-'));
  const root = join(base, 'project');
  const extra = join(base, 'shared');
  const outside = join(base, 'outside');
  for (const d of [root, extra, outside, join(root, 'src', 'deep')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  writeFileSync(join(extra, 'lib.txt'), 'shared lib');
  writeFileSync(join(root, 'README.md'), '# readme\nTODO: write docs\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1; // TODO tidy\n');
  writeFileSync(join(root, 'src', 'deep', 'b.ts'), 'export const b = 2;\n');
  writeFileSync(join(root, 'src', 'c.md'), 'notes\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-to-secret'));
  symlinkSync(outside, join(root, 'link-dir'));
  return { base, root, extra, outside };
}

describe('Sandbox', () => {
  it('accepts paths inside the roots, relative or absolute', async () => {
    const { root, extra } = layout();
    const sb = new Sandbox(root, [extra]);
    expect((await sb.resolve('README.md')).path).toBe(join(root, 'README.md'));
    expect((await sb.resolve('src/../README.md')).path).toBe(join(root, 'README.md'));
    expect((await sb.resolve(join(extra, 'lib.txt'))).real).toBe(join(extra, 'lib.txt'));
    // not existing yet (a file to create) is fine
    expect((await sb.resolve('new/dir/file.txt')).path).toBe(join(root, 'new', 'dir', 'file.txt'));
  });

  it('refuses `..`, absolute paths outside and symlinks leading outside, naming the path and the roots', async () => {
    const { root, outside } = layout();
    const sb = new Sandbox(root);
    await expect(sb.resolve('../outside/secret.txt')).rejects.toThrow(
      new SandboxError(`path ${join(outside, 'secret.txt')} is outside the session roots: ${root}`),
    );
    await expect(sb.resolve('/etc/passwd')).rejects.toThrow(`path /etc/passwd is outside the session roots: ${root}`);
    await expect(sb.resolve('link-to-secret')).rejects.toThrow(
      `path ${join(root, 'link-to-secret')} (resolves to ${join(outside, 'secret.txt')}) is outside the session roots`,
    );
    // a file that does not exist yet under a symlinked directory that leads outside
    await expect(sb.resolve('link-dir/new.txt')).rejects.toThrow(/resolves to .*outside\/new\.txt/);
    await expect(sb.resolve('')).rejects.toThrow(SandboxError);
    await expect(sb.resolve('a\0b')).rejects.toThrow(/NUL/);
  });

  it('globs: ** spans directories, a bare pattern matches base names, {a,b} alternatives', () => {
    expect(globToRegExp('**/*.ts').test('src/deep/b.ts')).toBe(true);
    expect(globToRegExp('**/*.ts').test('a.ts')).toBe(true);
    expect(globToRegExp('src/*.ts').test('src/deep/b.ts')).toBe(false);
    expect(globToRegExp('*.md').test('src/c.md')).toBe(true);
    expect(globToRegExp('*.{ts,md}').test('x.md')).toBe(true);
    expect(globToRegExp('*.{ts,md}').test('x.js')).toBe(false);
  });
});

describe('file tools through the agent', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    h?.tap.assertAllValid();
    await h?.close();
    h = undefined;
  });
  const tools = (us: Wire[]) =>
    us.filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');

  it('escapes are refused as failed tool calls before any permission is asked', async () => {
    const { root, outside } = layout();
    h = await startHarness({
      version: 1,
      cwd: root,
      agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }) }),
      permission: answer('allow_once'),
    });
    for (const [prompt, needle] of [
      ['read ../outside/secret.txt', `path ${join(outside, 'secret.txt')} is outside the session roots: ${root}`],
      ['read /etc/passwd', 'path /etc/passwd is outside the session roots'],
      ['read link-to-secret', 'resolves to'],
      ['create ../outside/evil.txt containing x', 'outside the session roots'],
      ['create link-dir/evil.txt containing x', 'outside the session roots'],
    ] as const) {
      const r = await h.turn(prompt);
      const final = tools(r.updates).at(-1)!;
      expect(final.status, prompt).toBe('failed');
      expect(JSON.stringify(final.content), prompt).toContain(needle);
      expect(JSON.stringify(r.updates)).not.toContain('TOP SECRET');
    }
    expect(h.permissions).toHaveLength(0);
    expect(existsSync(join(outside, 'evil.txt'))).toBe(false);
  });

  it('additionalDirectories are roots too (v2)', async () => {
    const { root, extra } = layout();
    h = await startHarness({
      version: 2,
      cwd: root,
      additionalDirectories: [extra],
      agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }) }),
    });
    const r = await h.turn(`read ${join(extra, 'lib.txt')}`);
    expect(tools(r.updates).at(-1)!.status).toBe('completed');
    expect(chunkText(r.updates)).toContain('shared lib');
  });

  it('list_files lists recursively (not following symlinks) and filters by glob', async () => {
    const { root } = layout();
    h = await startHarness({
      version: 1,
      cwd: root,
      agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }) }),
    });
    const all = tools((await h.turn('list files')).updates).at(-1)!;
    const listing = all.content[0].content.text.split('\n');
    expect(listing).toEqual(['README.md', 'src/a.ts', 'src/c.md', 'src/deep/b.ts']);
    const ts = tools((await h.turn('list files matching **/*.ts')).updates).at(-1)!;
    expect(ts.content[0].content.text.split('\n')).toEqual(['src/a.ts', 'src/deep/b.ts']);
    const inSrc = tools((await h.turn('list files in src matching *.md')).updates).at(-1)!;
    expect(inSrc.content[0].content.text).toBe('c.md');
  });

  it('search_text finds regex matches with path:line and locations', async () => {
    const { root } = layout();
    h = await startHarness({
      version: 2,
      cwd: root,
      agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }) }),
    });
    const r = await h.turn('search TODO');
    const final = tools(r.updates).at(-1)!;
    expect(final.content[0].content.text.split('\n')).toEqual([
      'README.md:2: TODO: write docs',
      'src/a.ts:1: export const a = 1; // TODO tidy',
    ]);
    expect(final.locations).toEqual([
      { path: join(root, 'README.md'), line: 2 },
      { path: join(root, 'src', 'a.ts'), line: 1 },
    ]);
    expect(chunkText(r.updates)).toMatch(/2 matches/);
  });

  it('edit_file replaces exactly one occurrence and reports a diff with the line', async () => {
    const { root } = layout();
    h = await startHarness({
      version: 1,
      cwd: root,
      agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }), mode: 'auto' }),
    });
    const r = await h.turn('edit README.md replace write docs with ship it');
    const final = tools(r.updates).at(-1)!;
    expect(final.status).toBe('completed');
    expect(final.content).toEqual([
      {
        type: 'diff',
        path: join(root, 'README.md'),
        oldText: '# readme\nTODO: write docs\n',
        newText: '# readme\nTODO: ship it\n',
      },
    ]);
    expect(final.locations).toEqual([{ path: join(root, 'README.md'), line: 2 }]);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# readme\nTODO: ship it\n');
    // a string that is not there fails with a message the model can act on
    const miss = tools((await h.turn('edit README.md replace nothing-like-this with x')).updates).at(-1)!;
    expect(miss.status).toBe('failed');
    expect(JSON.stringify(miss.content)).toContain('old_string not found');
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteGitPath, textDiffToGitPatch } from '../src/codec/index.js';

function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('git_patch text for v1 whole-text diffs (ACP-V2-DIFF-06)', () => {
  it('writes a modify section with absolute paths and no a/ b/ prefixes', () => {
    expect(textDiffToGitPatch('/w/a.txt', 'one\ntwo\nthree\n', 'one\n2\nthree\n')).toBe(
      'diff --git /w/a.txt /w/a.txt\n--- /w/a.txt\n+++ /w/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n',
    );
  });

  it('writes an added file with new file mode and /dev/null', () => {
    expect(textDiffToGitPatch('/w/new.txt', null, 'a\nb\n')).toBe(
      'diff --git /w/new.txt /w/new.txt\nnew file mode 100644\n--- /dev/null\n+++ /w/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n',
    );
    // an empty new file has no hunks; the ---/+++ lines stay (git needs them with absolute paths)
    expect(textDiffToGitPatch('/w/empty', null, '')).toBe(
      'diff --git /w/empty /w/empty\nnew file mode 100644\n--- /dev/null\n+++ /w/empty\n',
    );
  });

  it('marks a missing final newline; no patch for an unchanged file', () => {
    expect(textDiffToGitPatch('/w/a', 'x', 'y')).toBe(
      'diff --git /w/a /w/a\n--- /w/a\n+++ /w/a\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n',
    );
    expect(textDiffToGitPatch('/w/a', 'same\n', 'same\n')).toBeNull();
  });

  it('quotes paths the way git does', () => {
    expect(quoteGitPath('/plain/path-1.ts')).toBe('/plain/path-1.ts');
    expect(quoteGitPath('/with space/a b')).toBe('/with space/a b');
    expect(quoteGitPath('/q"uote\\back')).toBe('"/q\\"uote\\\\back"');
    expect(quoteGitPath('/tab\there')).toBe('"/tab\\there"');
    expect(quoteGitPath('/café')).toBe('"/caf\\303\\251"');
    // a space in the name: git adds a tab after the ---/+++ names
    expect(textDiffToGitPatch('/a b', 'x\n', 'y\n').split('\n').slice(1, 3)).toEqual(['--- /a b\t', '+++ /a b\t']);
  });

  it.runIf(hasGit())('produces patches that `git apply` accepts and that yield the new text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-patch-'));
    try {
      const line = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '', '  indented', 'x y z');
      const text = fc
        .array(line, { maxLength: 12 })
        .chain((lines) => fc.boolean().map((nl) => lines.join('\n') + (nl && lines.length ? '\n' : '')));
      const cases = fc.sample(fc.tuple(fc.option(text, { freq: 4 }), text), { numRuns: 60, seed: 42 });
      const patches: string[] = [];
      cases.forEach(([oldText, newText], i) => {
        const path = join(dir, i % 3 === 0 ? `file ${i}.txt` : `file-${i}.txt`);
        if (oldText !== null) writeFileSync(path, oldText);
        const patch = textDiffToGitPatch(path, oldText, newText);
        expect(patch === null).toBe(oldText === newText);
        if (patch) patches.push(patch);
      });
      writeFileSync(join(dir, 'all.patch'), patches.join(''));
      execFileSync('git', ['apply', '--unsafe-paths', '-p0', join(dir, 'all.patch')], { cwd: dir, stdio: 'pipe' });
      cases.forEach(([oldText, newText], i) => {
        const path = join(dir, i % 3 === 0 ? `file ${i}.txt` : `file-${i}.txt`);
        expect(existsSync(path), path).toBe(true);
        expect(readFileSync(path, 'utf8'), `case ${i}: ${JSON.stringify([oldText, newText])}`).toBe(newText);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Every ```ts / ```typescript block of README.md and docs/*.md is type-checked under `strict`
// against the built declarations (dist/*.d.ts), exactly as an app that installed the package would
// see them: the blocks are written into a temp project whose node_modules/acp-kit links to this
// package, and one `tsc --noEmit` run checks them all. ```js blocks are runnable JavaScript: the
// ones of docs/api.md are executed by test/examples.test.ts. Needs `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve('.');
const TSC = join(ROOT, 'node_modules', 'typescript', 'lib', 'tsc.js');

interface Snippet {
  /** `README.md:42` (the line of the opening fence) */
  where: string;
  file: string;
  code: string;
}

/** The ts blocks of one Markdown file, each with the line it starts on. */
function tsBlocks(mdPath: string): Array<{ line: number; code: string }> {
  const text = readFileSync(mdPath, 'utf8');
  const out: Array<{ line: number; code: string }> = [];
  for (const m of text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)) {
    out.push({ line: text.slice(0, m.index).split('\n').length, code: m[1] });
  }
  return out;
}

function collect(): Snippet[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  const snippets: Snippet[] = [];
  for (const md of ['README.md', ...docs]) {
    for (const b of tsBlocks(join(ROOT, md))) {
      const file = `${md.replace(/[^A-Za-z0-9]+/g, '-')}-L${b.line}.ts`;
      // each block is its own module (top-level await, no clashes between blocks)
      snippets.push({ where: `${md}:${b.line}`, file, code: `${b.code}\nexport {};\n` });
    }
  }
  return snippets;
}

describe('TypeScript snippets in README.md and docs/ compile under strict', () => {
  let dir = '';
  const snippets = collect();

  beforeAll(() => {
    expect(existsSync(join(ROOT, 'dist', 'index.d.ts')), 'run `npm run build` first').toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-doc-ts-'));
    mkdirSync(join(dir, 'node_modules'));
    // resolved like an installed dependency: package.json `exports` -> dist/*.d.ts
    symlinkSync(ROOT, join(dir, 'node_modules', 'acp-kit'), 'dir');
    symlinkSync(join(ROOT, 'node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'doc-snippets', private: true, type: 'module' }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext',
        types: ['node'], noEmit: true, skipLibCheck: true, isolatedModules: true,
      },
      files: snippets.map((s) => s.file),
    }));
    for (const s of snippets) writeFileSync(join(dir, s.file), s.code);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the snippets, among them the ones that show narrowing', () => {
    const where = snippets.map((s) => s.where);
    expect(where.filter((w) => w.startsWith('README.md')).length).toBeGreaterThanOrEqual(2);
    const all = snippets.map((s) => s.code).join('\n');
    expect(all).toContain("u.sessionUpdate === 'agent_message_chunk') return `chunk of ${u.messageId}`");
    expect(all).toContain("b.type === 'text' ? b.text : ''");
    expect(all).toContain("answer.outcome === 'selected' && answer.optionId");
  });

  it('tsc --noEmit reports no error', () => {
    const r = spawnSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    // map `README-md-L42.ts(3,5): error ...` back to the Markdown line
    const report = `${r.stdout}${r.stderr}`.replace(/^(\S+\.ts)\((\d+),(\d+)\)/gm, (all, file: string, line: string) => {
      const s = snippets.find((x) => x.file === file);
      return s ? `${s.where.split(':')[0]}:${Number(s.where.split(':')[1]) + Number(line)} (${all})` : all;
    });
    expect(report.trim(), 'type errors in documentation snippets').toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});

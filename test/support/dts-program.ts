/**
 * One TypeScript program over the built declarations (dist/*.d.ts of every package.json entry, and
 * through them the workspace packages' own) and
 * the ```ts snippets of README.md and docs/*.md, for test/public-surface.test.ts (the declarations
 * type-check on their own) and test/docs-typecheck.test.ts (the snippets compile under strict, as
 * an app that installed the package sees them). Parsing and binding @types/node, the libs and the
 * declarations is most of either check's CPU, so both share one program, built once per module
 * instance (in the shared "unit" worker, once for both files) and in process (no tsc child).
 * Needs `npm run build`.
 */
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
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');

/** One ```ts block of the docs, as its own module file of the snippet project. */
export interface Snippet {
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
    out.push({ line: text.slice(0, m.index).split('\n').length, code: m[1]! });
  }
  return out;
}

/** Every ```ts / ```typescript block of README.md, docs/*.md and each workspace package's README.md. */
export function docSnippets(): Snippet[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  const packages = readdirSync(join(ROOT, 'packages'))
    .map((p) => join('packages', p, 'README.md'))
    .filter((f) => existsSync(join(ROOT, f)));
  const snippets: Snippet[] = [];
  for (const md of ['README.md', ...docs, ...packages]) {
    for (const b of tsBlocks(join(ROOT, md))) {
      const file = `${md.replace(/[^A-Za-z0-9]+/g, '-')}-L${b.line}.ts`;
      // each block is its own module (top-level await, no clashes between blocks)
      snippets.push({ where: `${md}:${b.line}`, file, code: `${b.code}\nexport {};\n` });
    }
  }
  return snippets;
}

/** The .d.ts files package.json `exports` points at. */
export function entryDeclarations(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types?: string }>;
  };
  return Object.values(pkg.exports).flatMap((e) => (typeof e === 'object' && e.types ? [join(ROOT, e.types)] : []));
}

export interface DtsProgram {
  program: ts.Program;
  snippets: Snippet[];
  entries: string[];
  /** Snippet file name (in the program) -> the snippet. */
  snippetOf: (fileName: string) => Snippet | undefined;
}

let built: DtsProgram | undefined;
/** The test files that use the program; it is dropped once each is done with it (it holds ~100 MB). */
const USERS = ['public-surface', 'docs-typecheck'] as const;
const done = new Set<string>();

/** Called by a user's afterAll: the program is released once every user is done (or at worker exit). */
export function doneWithDtsProgram(user: (typeof USERS)[number]): void {
  done.add(user);
  if (USERS.every((u) => done.has(u))) {
    built = undefined;
    done.clear();
  }
}

/** The top folders under node_modules of acp-kit's dependencies (a scope once for all its packages). */
function dependencyFolders(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  return [...new Set(Object.keys(pkg.dependencies ?? {}).map((name) => name.split('/')[0] ?? name))];
}

/**
 * The program, built on first use. The snippets are written into a temp project whose
 * node_modules/acp-kit links to this package (resolved like an installed dependency: package.json
 * `exports` -> dist/*.d.ts); the project is removed once the program is built (module resolution
 * is over by then, and the checker works on the source files in memory).
 */
export function dtsProgram(): DtsProgram {
  if (built) return built;
  if (!existsSync(join(DIST, 'index.d.ts'))) throw new Error('dist/index.d.ts is missing: run `npm run build` first');
  const snippets = docSnippets();
  const entries = entryDeclarations();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-doc-ts-')));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'acp-kit'), 'dir');
    // the workspace packages, as npm links them (a README of a package imports it by its own name),
    // and acp-kit's other dependencies, as npm hoists them into an app (a snippet may import one)
    for (const top of dependencyFolders())
      symlinkSync(join(ROOT, 'node_modules', top), join(dir, 'node_modules', top), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'doc-snippets', private: true, type: 'module' }));
    for (const s of snippets) writeFileSync(join(dir, s.file), s.code);
    const byFile = new Map(snippets.map((s) => [join(dir, s.file), s]));
    const program = ts.createProgram([...byFile.keys(), ...entries], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      noEmit: true,
      isolatedModules: true,
      jsx: ts.JsxEmit.ReactJSX,
    });
    built = { program, snippets, entries, snippetOf: (f) => byFile.get(f) };
    return built;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `path:line message` of each diagnostic (`where` maps a file name and 1-based line to a label). */
export function formatDiagnostics(
  ds: readonly ts.Diagnostic[],
  where: (file: ts.SourceFile, line: number) => string = (f, l) => `${relative(ROOT, f.fileName)}:${l}`,
): string[] {
  return ds.map((d) => {
    const at =
      d.file && d.start !== undefined
        ? `${where(d.file, d.file.getLineAndCharacterOfPosition(d.start).line + 1)} `
        : '';
    return `${at}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** The program's own declarations (acp-kit's dist/ and every workspace package's), every one of them. */
export function distFiles(p: DtsProgram): ts.SourceFile[] {
  const own = /^packages\/[a-z-]+\/dist\//;
  return p.program.getSourceFiles().filter((f) => f.fileName.startsWith(DIST) || own.test(relative(ROOT, f.fileName)));
}

// Issue 9.6: what the package ships in its .d.ts files. Members marked `@internal` in src (e.g.
// `ClientSession.receive`, `markClosed`, `supersede`) must not be in the declarations any app
// compiles against, and stripping them must leave declarations that type-check on their own.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { distFiles, doneWithDtsProgram, dtsProgram, formatDiagnostics } from './support/dts-program.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Each package's sources and the declarations its build writes: acp-kit's own and every workspace package's. */
const HOMES = [root, ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p))].map((home) => ({
  src: join(home, 'src'),
  dist: join(home, 'dist'),
}));

function files(dir: string, test: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, test));
    else if (test(name)) out.push(p);
  }
  return out;
}

const isInternal = (node: ts.Node): boolean => ts.getJSDocTags(node).some((t) => t.tagName.text === 'internal');
const nameOf = (node: ts.Node, sf: ts.SourceFile): string | undefined => {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const n = (node as { name?: ts.Node }).name;
  return n ? n.getText(sf) : undefined;
};

/** `Container.member` (or `member` at module level) of every declaration marked `@internal`, per module path. */
function internalNames(file: string): string[] {
  const sf = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: string[] = [];
  for (const stmt of sf.statements) {
    const top = nameOf(stmt, sf);
    if (isInternal(stmt) && top) out.push(top);
    if ((ts.isClassDeclaration(stmt) || ts.isInterfaceDeclaration(stmt)) && top) {
      for (const m of stmt.members) {
        const n = nameOf(m, sf);
        if (n && isInternal(m)) out.push(`${top}.${n}`);
      }
    }
  }
  return out;
}

/** Every top-level name and `Container.member` declared in a .d.ts. */
function declaredNames(file: string): Set<string> {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Set<string>();
  for (const stmt of sf.statements) {
    const top = nameOf(stmt, sf);
    if (top) out.add(top);
    if (ts.isVariableStatement(stmt)) for (const d of stmt.declarationList.declarations) out.add(d.name.getText(sf));
    if ((ts.isClassDeclaration(stmt) || ts.isInterfaceDeclaration(stmt)) && top) {
      for (const m of stmt.members) {
        const n = nameOf(m, sf);
        if (n) out.add(`${top}.${n}`);
      }
    }
  }
  return out;
}

afterAll(() => doneWithDtsProgram('public-surface'));

describe('public surface (.d.ts)', () => {
  it('no member marked @internal in src is declared in the built .d.ts files', () => {
    const leaked: string[] = [];
    let checked = 0;
    for (const { src, dist } of HOMES)
      for (const file of files(src, (n) => /\.tsx?$/.test(n) && !n.endsWith('.d.ts')).filter(
        (f) => !f.includes('/inspector/ui/'),
      )) {
        const names = internalNames(file);
        if (names.length === 0) continue;
        const dts = join(dist, relative(src, file)).replace(/\.tsx?$/, '.d.ts');
        expect(existsSync(dts), `${dts} (run npm run build)`).toBe(true);
        const declared = declaredNames(dts);
        for (const n of names) {
          checked++;
          if (declared.has(n)) leaked.push(`${relative(root, dts)}: ${n}`);
        }
      }
    // the members the issue names are among those checked
    expect(checked).toBeGreaterThan(10);
    expect(leaked).toEqual([]);
  });

  it('ClientSession declares no way to inject updates or end a session from outside', () => {
    const declared = declaredNames(join(root, 'packages/client/dist/client-session.d.ts'));
    expect(declared.has('ClientSession.prompt')).toBe(true);
    for (const m of ['receive', 'markClosed', 'supersede', 'requestPermission'])
      expect(declared.has(`ClientSession.${m}`), m).toBe(false);
  });

  it('the built .d.ts files of every entry point type-check on their own', () => {
    // the program also holds the docs' snippets (test/docs-typecheck.test.ts): built once for both
    const p = dtsProgram();
    expect(p.entries.length).toBeGreaterThan(3);
    // only our own declarations are checked (a dependency's .d.ts problems are not ours to report)
    const ours = distFiles(p);
    expect(ours.length).toBeGreaterThan(20);
    expect(ours.map((f) => f.fileName)).toEqual(expect.arrayContaining(p.entries));
    expect(formatDiagnostics(ours.flatMap((f) => p.program.getSemanticDiagnostics(f)))).toEqual([]);
  });
});

// Lists hand-written functions longer than a limit (default 100 lines) in TypeScript sources:
// function declarations, methods, arrow functions and function expressions, each measured from
// its first to its last line. The generated wire types (packages/protocol/src/wire) are left out.
// Issue 25 item 3: "no hand-written function over 100 lines in src, reported by a script in CI".
// Usage: node scripts/function-length.mjs [dir] [--limit N]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { SOURCE_ROOTS, tsFiles } from './ts-files.mjs';

/** The name a reader would search for: the declaration's own name, or the variable/property holding it. */
function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return p.name.getText(sf);
  return '(anonymous)';
}

/** Every function under `root` longer than `limit` lines: `{ file, line, name, lines }`, longest first. */
export function longFunctions(root = SOURCE_ROOTS, limit = 100) {
  const found = [];
  for (const file of tsFiles(root)) {
    const sf = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
      file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
    );
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > limit) found.push({ file, line: first + 1, name: nameOf(node, sf), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found.sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--limit');
  const limit = i >= 0 ? Number(args[i + 1]) : 100;
  const root = args[0] && !args[0].startsWith('--') ? args[0] : SOURCE_ROOTS;
  const list = longFunctions(root, limit);
  for (const f of list) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${list.length} functions over ${limit} lines`);
}

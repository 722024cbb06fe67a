// Counts TypeScript type assertions (`x as T`, `<T>x`) in hand-written sources, excluding `as const`
// and the generated wire types (packages/protocol/src/wire). Used to track issue 9.1's cast budget.
// Usage: node scripts/count-casts.mjs [dir] [--list]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { SOURCE_ROOTS, tsFiles } from './ts-files.mjs';

/**
 * The casts under `root`: one `{ file, line, text }` per type assertion, `as const` and the
 * generated wire types left out.
 */
export function findCasts(root = SOURCE_ROOTS) {
  const casts = [];
  for (const file of tsFiles(root)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
        const t = node.type;
        const isConst = ts.isTypeReferenceNode(t) && t.typeName.getText(sf) === 'const';
        if (!isConst) {
          const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
          casts.push({ file, line: line + 1, text: node.getText(sf).replace(/\s+/g, ' ').slice(0, 100) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return casts;
}

/**
 * The non-null assertions (`x!`) under `root`: the same trust as a cast, hidden (issue 25 item 6).
 * One `{ file, line, text }` each, the generated wire types left out.
 */
export function findNonNullAssertions(root = SOURCE_ROOTS) {
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
      if (ts.isNonNullExpression(node)) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
        found.push({ file, line: line + 1, text: node.getText(sf).replace(/\s+/g, ' ').slice(0, 100) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : SOURCE_ROOTS;
  const casts = findCasts(root);
  if (process.argv.includes('--list')) {
    for (const c of casts) console.log(`${c.file}:${c.line}: ${c.text}`);
  } else {
    const perFile = new Map();
    for (const c of casts) perFile.set(c.file, (perFile.get(c.file) ?? 0) + 1);
    for (const [f, n] of [...perFile].sort((a, b) => b[1] - a[1])) console.log(String(n).padStart(4), f);
  }
  console.log('total', casts.length);
}

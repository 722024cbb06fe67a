// Counts TypeScript type assertions (`x as T`, `<T>x`) in hand-written sources, excluding `as const`
// and the generated wire types (src/protocol/wire). Used to track issue 9.1's cast budget.
// Usage: node scripts/count-casts.mjs [dir] [--list]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'src';
const list = process.argv.includes('--list');
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (p.split('/').join('/').endsWith('protocol/wire')) continue;
      walk(p);
    } else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(p);
  }
};
walk(root);
let total = 0;
const perFile = [];
for (const file of files) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let n = 0;
  const visit = (node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const t = node.type;
      const isConst = ts.isTypeReferenceNode(t) && t.typeName.getText(sf) === 'const';
      if (!isConst) {
        n++;
        if (list) {
          const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
          console.log(`${file}:${line + 1}: ${node.getText(sf).replace(/\s+/g, ' ').slice(0, 100)}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (n) perFile.push([n, file]);
  total += n;
}
if (!list) for (const [n, f] of perFile.sort((a, b) => b[0] - a[0])) console.log(String(n).padStart(4), f);
console.log('total', total);

// The layer rule of README's "Dependencies point one way": protocol <- rpc <- agent / client <-
// captures <- tools (proxy, inspector, checker, server) <- cli. Lists every import in src that goes against it.
// Every form counts: import, import type, export ... from, dynamic import().
// Usage: node scripts/import-directions.mjs
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { tsFiles } from './ts-files.mjs';

/** What each top-level folder of src may import besides itself. */
export const ALLOWED = {
  // Node.js utilities with no protocol in them (a confined file system, process groups)
  node: [],
  protocol: [],
  rpc: ['protocol', 'node'],
  agent: ['node', 'protocol', 'rpc'],
  client: ['node', 'protocol', 'rpc'],
  // capture files (record, read, redact, latency, stats, diff, validate): shared by the tools
  captures: ['protocol'],
  proxy: ['node', 'protocol', 'rpc', 'agent', 'client', 'captures'],
  server: ['node', 'protocol', 'rpc', 'agent', 'client'],
  inspector: ['node', 'protocol', 'rpc', 'agent', 'client', 'captures'],
  checker: ['node', 'protocol', 'rpc', 'agent', 'client', 'captures'],
  cli: ['node', 'protocol', 'rpc', 'agent', 'client', 'captures', 'proxy', 'server', 'inspector', 'checker'],
  'index.ts': ['protocol', 'rpc'],
};

/** The relative module specifiers of one file, with their lines. */
function relativeImports(file) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const add = (lit) => {
    if (ts.isStringLiteralLike(lit) && lit.text.startsWith('.')) found.push({ spec: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1 });
  };
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every import in `root` (default src) from a layer it may not use: `{ file, line, from, to, spec }`. */
export function wrongDirections(root = 'src', allowed = ALLOWED) {
  const wrong = [];
  for (const file of tsFiles(root, { skipWire: false })) {
    const from = relative(root, file).split('/')[0];
    for (const { spec, line } of relativeImports(file)) {
      const to = relative(root, resolve(dirname(file), spec)).split('/')[0];
      if (to === from || to.startsWith('..')) continue;
      if (!(allowed[from] ?? []).includes(to)) wrong.push({ file, line, from, to, spec });
    }
  }
  return wrong;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const wrong = wrongDirections();
  for (const w of wrong) console.log(`${w.file}:${w.line}: ${w.from} -> ${w.to} (${w.spec})`);
  console.log(`${wrong.length} imports against the layer rule`);
}

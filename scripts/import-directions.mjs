// The dependency rule of README's "Dependencies point one way", checked on every import in the
// sources (import, import type, export ... from, dynamic import()):
// 1. a package reaches another package only by name (`@acp-kit/<name>`), never by a relative path
//    out of its own folder;
// 2. and only a package listed in its package.json `dependencies`: the packages' manifests are the
//    one place the allowed directions are written (protocol <- agent / client <- coding-agent,
//    server, tools <- acp-kit), and npm refuses a cycle among them;
// 3. inside @acp-kit/protocol the model (codecs, validators, state) imports neither the JSON-RPC
//    layer (rpc/) nor the Node.js utilities (node/); rpc/ may use both.
// Usage: node scripts/import-directions.mjs
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { tsFiles } from './ts-files.mjs';

/** Inside @acp-kit/protocol: top-level folder -> the folders it may import ('' is the model at the top). */
export const PROTOCOL_LAYERS = { '': [], rpc: ['', 'node'], node: [] };
/** Entry files of @acp-kit/protocol that gather every layer for other packages. */
const PROTOCOL_GATHERERS = new Set(['internal.ts']);

/** The packages of a workspace: name -> { dir (its src), deps }. */
export function workspacePackages(root) {
  root = resolve(root);
  const read = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const list = [];
  const rootPkg = read(root);
  list.push({ name: rootPkg.name, src: join(root, 'src'), deps: Object.keys(rootPkg.dependencies ?? {}) });
  const packagesDir = join(root, 'packages');
  for (const name of existsSync(packagesDir) ? readdirSync(packagesDir).sort() : []) {
    const dir = join(packagesDir, name);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const pkg = read(dir);
    list.push({ name: pkg.name, short: name, src: join(dir, 'src'), deps: Object.keys(pkg.dependencies ?? {}) });
  }
  return list;
}

/** The module specifiers of one file (relative and bare), with their lines. */
function moduleSpecifiers(file) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const add = (lit) => {
    if (ts.isStringLiteralLike(lit))
      found.push({ spec: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1 });
  };
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0])
      add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/**
 * Every import in the workspace at `root` against the rule: `{ file, line, from, to, spec }`,
 * `from`/`to` naming packages (or protocol layers as `protocol:rpc`).
 */
export function wrongDirections(root = '.') {
  root = resolve(root);
  const packages = workspacePackages(root);
  const owner = (path) => packages.find((p) => path === p.src || path.startsWith(p.src + sep));
  const wrong = [];
  for (const pkg of packages) {
    if (!existsSync(pkg.src)) continue;
    for (const file of tsFiles(pkg.src, { skipWire: false })) {
      for (const { spec, line } of moduleSpecifiers(file)) {
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          const to = owner(target);
          if (to !== pkg)
            wrong.push({
              file: relative(root, file),
              line,
              from: pkg.name,
              to: to?.name ?? relative(root, target),
              spec,
            });
          else if (pkg.short === 'protocol') {
            const layer = (p) => {
              const first = relative(pkg.src, p).split(sep)[0];
              return first in PROTOCOL_LAYERS && first !== '' && relative(pkg.src, p).includes(sep) ? first : '';
            };
            const [a, b] = [layer(file), layer(target)];
            if (a !== b && !PROTOCOL_LAYERS[a].includes(b) && !PROTOCOL_GATHERERS.has(relative(pkg.src, file)))
              wrong.push({
                file: relative(root, file),
                line,
                from: `protocol:${a || 'model'}`,
                to: `protocol:${b || 'model'}`,
                spec,
              });
          }
        } else if (spec.startsWith('@acp-kit/') || spec === 'acp-kit' || spec.startsWith('acp-kit/')) {
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : 'acp-kit';
          if (!pkg.deps.includes(name))
            wrong.push({ file: relative(root, file), line, from: pkg.name, to: name, spec });
        }
      }
    }
  }
  return wrong;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const wrong = wrongDirections();
  for (const w of wrong) console.log(`${w.file}:${w.line}: ${w.from} -> ${w.to} (${w.spec})`);
  console.log(`${wrong.length} imports against the dependency rule`);
}

#!/usr/bin/env node
// The conformance catalogue (docs/conformance.md): one row per ACP requirement ID the project cites.
//
//   node scripts/conformance.mjs                  check: every ID cited in src/, test/, docs/, examples/, bench/
//                                                 and README.md has a row with a description, and every test
//                                                 file a row names exists; exit 1 listing the problems
//   node scripts/conformance.mjs --write [digest] regenerate the table: keeps the descriptions already written,
//                                                 takes spec pages and sections from the requirements digest
//                                                 (default /work/shared/spec-digest.md) for new rows, and
//                                                 recomputes the test column from the citations
//
// IDs look like ACP-V2-LIFE-05; citations may abbreviate lists and ranges: ACP-V2-LIFE-05/06,
// ACP-ALL-DEL-01..03, ACP-V2-LIFE-03..07/09 (each expands to every ID it names).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const CATALOGUE = 'docs/conformance.md';
/** Where citations are searched (the catalogue itself excluded). */
export const CITING = ['src', 'packages', 'test', 'docs', 'examples', 'bench', 'README.md'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'fixtures-generated', '.git']);
const TEXT_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|mdx|json)$/;

const CITATION = /ACP-(V1|V2|ALL|RFD)-([A-Z]+)-(\d{2})((?:(?:\.\.|\/)\d{2})*)/g;

/**
 * Every ID named by the citations in `text`, in order of appearance, ranges and lists expanded.
 * @param {string} text
 * @returns {string[]}
 */
export function citedIds(text) {
  const out = [];
  for (const m of text.matchAll(CITATION)) {
    const [, version, area, first, tail] = m;
    const id = (n) => `ACP-${version}-${area}-${String(n).padStart(2, '0')}`;
    let last = Number(first);
    out.push(id(last));
    for (const step of tail.matchAll(/(\.\.|\/)(\d{2})/g)) {
      const n = Number(step[2]);
      if (step[1] === '..') for (let k = last + 1; k <= n; k++) out.push(id(k));
      else out.push(id(n));
      last = n;
    }
  }
  return out;
}

/** Repository-relative paths of the text files under `CITING`. */
function citingFiles(root) {
  const files = [];
  const walk = (rel) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs).sort()) if (!SKIP_DIRS.has(name)) walk(join(rel, name));
    } else if (TEXT_FILE.test(rel) && rel !== CATALOGUE) files.push(rel.split('\\').join('/'));
  };
  for (const entry of CITING) walk(entry);
  return files;
}

/**
 * Citations in the repository: for each ID the files citing it.
 * @param {string} [root]
 * @returns {Map<string, Set<string>>}
 */
export function collectCitations(root = ROOT) {
  const byId = new Map();
  for (const file of citingFiles(root)) {
    for (const id of citedIds(readFileSync(join(root, file), 'utf8'))) {
      if (!byId.has(id)) byId.set(id, new Set());
      byId.get(id).add(file);
    }
  }
  return byId;
}

// root test/ (the CLI and the repository as a whole) and each package's own packages/<name>/test/
const isTestFile = (file) => /^(test|packages\/[^/]+\/test)\//.test(file) && /\.test\.tsx?$/.test(file);

/** Splits a Markdown table row on unescaped pipes. */
function cells(line) {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/**
 * The catalogue's rows: ID -> { description, spec, tests } (tests as written in the row).
 * @param {string} markdown
 */
export function parseCatalogue(markdown) {
  const rows = new Map();
  for (const line of markdown.split('\n')) {
    if (!/^\|\s*ACP-/.test(line)) continue;
    const [id, description = '', spec = '', tests = ''] = cells(line);
    const files = [...tests.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    rows.set(id, { description: description.replace(/\\\|/g, '|'), spec, tests: files });
  }
  return rows;
}

/**
 * Problems that make the catalogue out of date: cited IDs without a row, rows without a description,
 * rows naming a test file that does not exist, and rows that miss a test file citing the ID.
 * @param {string} [root]
 * @returns {string[]}
 */
export function checkCatalogue(root = ROOT) {
  const path = join(root, CATALOGUE);
  if (!existsSync(path)) return [`${CATALOGUE} is missing: run node scripts/conformance.mjs --write`];
  const rows = parseCatalogue(readFileSync(path, 'utf8'));
  const problems = [];
  for (const [id, files] of collectCitations(root)) {
    const row = rows.get(id);
    if (!row) {
      problems.push(`${id} is cited in ${[...files].join(', ')} but has no row in ${CATALOGUE}`);
      continue;
    }
    for (const file of [...files].filter(isTestFile)) {
      if (!row.tests.includes(file)) problems.push(`${id}: ${file} cites it but the row's tests do not list it`);
    }
  }
  for (const [id, row] of rows) {
    if (!row.description || /^TODO\b/.test(row.description)) problems.push(`${id}: the row has no description (TODO)`);
    for (const file of row.tests) {
      if (!existsSync(join(root, file))) problems.push(`${id}: the row names ${file}, which does not exist`);
    }
  }
  return problems;
}

/**
 * Requirement rows of the digest, grouped by section: ID -> { section, spec }.
 * @param {string} digest
 */
export function parseDigest(digest) {
  const rows = new Map();
  const sections = [];
  let section = '';
  for (const line of digest.split('\n')) {
    const heading = /^###\s+(\d+\.\d+)\s+(.*)$/.exec(line);
    if (heading) {
      section = `${heading[1]} ${heading[2].trim()}`;
      sections.push(section);
      continue;
    }
    if (!/^\|\s*ACP-/.test(line)) continue;
    const c = cells(line);
    const source = c[4] ?? '';
    // the spec page(s): repository paths and sdk:<file> references, without the parenthesised anchors
    const pages = [
      ...source.matchAll(
        /(docs\/[\w./-]+\.mdx|schema\/v\d\/[\w.-]+\.json|sdk:[\w:/.-]+|agent-client-protocol-schema\/[\w./-]+)/g,
      ),
    ].map((m) => m[1]);
    rows.set(c[0], { section, spec: [...new Set(pages)].join(', '), retired: /RETIRED/.test(c[3] ?? '') });
  }
  return { rows, sections };
}

const escapeCell = (text) => text.replace(/\|/g, '\\|');

/**
 * The catalogue's Markdown: one table per digest section, rows in digest order, the test column
 * recomputed from the citations. Descriptions come from `previous` (TODO when new).
 */
export function renderCatalogue({ citations, previous, digest }) {
  const ids = new Set([...citations.keys(), ...previous.keys()]);
  const sectionOf = (id) =>
    digest.rows.get(id)?.section ?? previous.get(id)?.section ?? 'Not in the requirements digest';
  const order = [...digest.rows.keys()];
  const rank = (id) => (order.includes(id) ? order.indexOf(id) : Number.MAX_SAFE_INTEGER);
  const bySection = new Map();
  for (const id of [...ids].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))) {
    const section = sectionOf(id);
    if (!bySection.has(section)) bySection.set(section, []);
    bySection.get(section).push(id);
  }
  const sections = [...digest.sections, 'Not in the requirements digest'].filter((s) => bySection.has(s));
  const out = [
    '# Conformance catalogue',
    '',
    'Every requirement ID of the Agent Client Protocol that acp-kit cites in its code, tests and docs',
    '(`ACP-<V1|V2|ALL>-<AREA>-<NN>`: `V1`/`V2` = that protocol version only, `ALL` = both). Each row says what',
    'the requirement asks in our words, the page of the specification',
    '([agentclientprotocol/agent-client-protocol](https://github.com/agentclientprotocol/agent-client-protocol),',
    '`sdk:` = the schemas shipped in `@agentclientprotocol/sdk`) it comes from, and the test files that cite it.',
    '',
    'The table is checked by `test/conformance-catalogue.test.ts`: citing a new ID, or a test file that a row',
    'does not list, fails it. `node scripts/conformance.mjs --write` adds the missing rows (description `TODO`,',
    'to be written by hand) and recomputes the test column; `node scripts/conformance.mjs` lists the problems.',
    '',
  ];
  for (const section of sections) {
    out.push(`## ${section}`, '', '| ID | Requirement | Spec page | Tests |', '|---|---|---|---|');
    for (const id of bySection.get(section)) {
      const old = previous.get(id);
      const description = old?.description || 'TODO';
      const spec = digest.rows.get(id)?.spec || old?.spec || '';
      const tests = [...(citations.get(id) ?? [])].filter(isTestFile).sort();
      out.push(`| ${id} | ${escapeCell(description)} | ${spec} | ${tests.map((t) => `\`${t}\``).join(', ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** Rows of the existing catalogue with the section each sits in (kept for IDs the digest lacks). */
function previousRows(markdown) {
  const rows = parseCatalogue(markdown);
  let section = '';
  for (const line of markdown.split('\n')) {
    const h = /^##\s+(.*)$/.exec(line);
    if (h) section = h[1];
    const id = /^\|\s*(ACP-[A-Z0-9-]+)/.exec(line)?.[1];
    if (id && rows.has(id)) rows.get(id).section = section;
  }
  return rows;
}

function main(argv) {
  if (argv[0] === '--write') {
    const digestPath = argv[1] ?? '/work/shared/spec-digest.md';
    const digest = existsSync(digestPath)
      ? parseDigest(readFileSync(digestPath, 'utf8'))
      : { rows: new Map(), sections: [] };
    if (digest.rows.size === 0)
      console.warn(`conformance: no digest at ${digestPath}; spec pages are kept from the existing rows`);
    const path = join(ROOT, CATALOGUE);
    const previous = existsSync(path) ? previousRows(readFileSync(path, 'utf8')) : new Map();
    writeFileSync(path, renderCatalogue({ citations: collectCitations(), previous, digest }));
    console.log(`conformance: wrote ${relative(process.cwd(), path)}`);
  }
  const problems = checkCatalogue();
  for (const p of problems) console.error(`conformance: ${p}`);
  if (problems.length > 0) {
    console.error(
      `conformance: ${problems.length} problem(s); fix ${CATALOGUE} (node scripts/conformance.mjs --write adds missing rows)`,
    );
    process.exitCode = 1;
  } else console.log(`conformance: ${CATALOGUE} covers every cited requirement ID`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));

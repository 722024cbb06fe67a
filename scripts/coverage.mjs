#!/usr/bin/env node
/**
 * The coverage matrix of issue 26 item 1: which method, notification and `sessionUpdate` kind of
 * the pinned `@agentclientprotocol/sdk` schemas each layer of acp-kit handles, and which test
 * proves it.
 *
 * ROWS come from the four schema files (v1/v2, stable/unstable): every def marked `x-method` whose
 * name ends in Request or Notification (its `x-side` is the side that handles it: `agent` means
 * client->agent, `client` agent->client, `protocol` both ways, `proxy` the conductor's proxy
 * chain), and every `sessionUpdate` constant of the `SessionUpdate` union. One row per name; the
 * two methods the codec renames (v1 `authenticate` = v2 `auth/login`, `logout` = `auth/logout`,
 * packages/protocol/src/codec/method-names.ts) are one row under the v1 (neutral) name.
 *
 * COLUMNS are the layers below. The hand-edited claims file docs/coverage-claims.json holds one
 * entry per row per layer:
 *
 *   { "methods": { "session/prompt": { "codec": ["packages/protocol/test/codec-methods.test.ts"], ... } },
 *     "updates": { "plan_update": { "bridge": { "na": "one-line reason" }, ... } } }
 *
 * A cell is a list of test files that exercise the row in that layer (each must exist and name the
 * row literally: quoted, 'session/prompt' "plan_update" `notice`, or by its `Methods.<key>`
 * constant), or {"na": "reason"} when the layer has no such thing, or {"missing": "reason"} when
 * nothing exercises it yet. Stable rows' gaps are budgeted in KNOWN_GAPS of
 * test/coverage-matrix.test.ts (a list that may only shrink).
 *
 *   node scripts/coverage.mjs           writes docs/coverage.md
 *   node scripts/coverage.mjs --check   exits 1 when the claims are inconsistent or the file is stale
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLAIMS_PATH = 'docs/coverage-claims.json';
export const DOC_PATH = 'docs/coverage.md';
const SCHEMA_DIR = 'node_modules/@agentclientprotocol/sdk/schema';

/** The layers, in column order, with the heading the table shows. */
export const LAYERS = [
  ['codec', 'codec'],
  ['model', 'neutral model'],
  ['agent', 'agent API'],
  ['client', 'client API + state'],
  ['cli', 'run/chat'],
  ['bridge', 'bridge'],
  ['validator', 'validator'],
  ['inspector', 'inspector'],
  ['checker', 'checker'],
];
export const LAYER_KEYS = LAYERS.map(([key]) => key);

/** v2 wire names the codec translates to the neutral (v1) name; one row each (method-names.ts). */
export const V2_RENAMES = new Map([
  ['auth/login', 'authenticate'],
  ['auth/logout', 'logout'],
]);

const DIRECTION = { agent: 'client->agent', client: 'agent->client', protocol: 'both ways', proxy: 'proxy chain' };

/** The four schema files, read from the pinned SDK. */
export function loadSchemas(root = ROOT) {
  const read = (v, f) => JSON.parse(readFileSync(join(root, SCHEMA_DIR, v, f), 'utf8'));
  return ['v1', 'v2'].flatMap((version) =>
    [
      ['stable', 'schema.json'],
      ['unstable', 'schema.unstable.json'],
    ].map(([stability, file]) => ({ version, stability, schema: read(version, file) })),
  );
}

function rowFor(rows, group, name) {
  const key = `${group} ${name}`;
  let row = rows.get(key);
  if (!row) {
    row = { group, name, wire: {}, v1: null, v2: null, directions: new Set(), forms: new Set() };
    rows.set(key, row);
  }
  return row;
}

// A version's mark: 'stable' wins over 'unstable' (every stable def is in the unstable file too)
function mark(row, version, stability) {
  if (row[version] !== 'stable') row[version] = stability;
}

function methodDefs(schema) {
  return Object.entries(schema.$defs ?? {}).filter(
    ([def, body]) => typeof body['x-method'] === 'string' && /(Request|Notification)$/.test(def),
  );
}

function updateKinds(schema) {
  const union = schema.$defs?.SessionUpdate;
  const arms = union?.oneOf ?? union?.anyOf ?? [];
  return arms.map((arm) => arm.properties?.sessionUpdate?.const).filter((k) => typeof k === 'string');
}

/**
 * The rows of the matrix, sorted: `{ group: 'methods'|'updates', name, v1, v2, stable, wire,
 * directions, forms }`; `v1`/`v2` is 'stable', 'unstable' or null, `stable` whether any version
 * has it in its stable schema, `wire` the per-version wire name where it differs from `name`.
 */
export function schemaRows(schemas = loadSchemas()) {
  const rows = new Map();
  for (const { version, stability, schema } of schemas) {
    for (const [def, body] of methodDefs(schema)) {
      const wire = body['x-method'];
      const name = (version === 'v2' && V2_RENAMES.get(wire)) || wire;
      const row = rowFor(rows, 'methods', name);
      if (name !== wire) row.wire[version] = wire;
      mark(row, version, stability);
      row.directions.add(DIRECTION[body['x-side']] ?? String(body['x-side']));
      row.forms.add(def.endsWith('Request') ? 'request' : 'notification');
    }
    for (const kind of updateKinds(schema)) mark(rowFor(rows, 'updates', kind), version, stability);
  }
  return [...rows.values()]
    .map((row) => ({
      ...row,
      stable: row.v1 === 'stable' || row.v2 === 'stable',
      directions: [...row.directions].sort(),
      forms: [...row.forms].sort(),
    }))
    .sort((a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name));
}

/** The names a test file may quote for a row: its own, and its wire names in other versions. */
export function rowNames(row) {
  return [row.name, ...Object.values(row.wire)];
}

/**
 * The neutral `Methods` table (packages/protocol/src/model/methods.ts) as name -> keys: a test
 * that writes `Methods.sessionNew` names 'session/new' as surely as one that quotes it.
 */
export function methodConstants(root = ROOT) {
  const source = readFileSync(join(root, 'packages/protocol/src/model/methods.ts'), 'utf8');
  const table = /export const Methods = \{([^}]*)\}/.exec(source)?.[1] ?? '';
  const byName = new Map();
  for (const [, key, name] of table.matchAll(/(\w+): '([^']+)'/g)) byName.set(name, [...(byName.get(name) ?? []), key]);
  return byName;
}

/**
 * `text` without its comments, so that a test that only talks about a row in a comment does not
 * count as naming it. Naive about `//` inside strings (it keeps `://`): it can only drop a mention.
 */
export function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/**
 * Lists of rows that tests take from the schemas at test time instead of naming each row
 * (test/support/schema-lists.ts): `name(version)` returns the rows of `group` that are stable in
 * that version. A test names every such row when its code imports `name` from `module` and loops
 * over a call of it (`.each(name(…))` or `for (… of name(…))`) and asserts (`expect(`): see
 * {@link sharedListNames}.
 */
export const SHARED_LISTS = [{ name: 'stableUpdateKinds', module: 'test/support/schema-lists', group: 'updates' }];

/** Whether `text` imports `name` from `module` (any relative path to it, .js/.ts or none). */
function importsFrom(text, name, module) {
  const tail = `/${module.split('/').slice(-2).join('/')}`;
  for (const [, names, from] of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g))
    if (from.replace(/\.(js|ts)$/, '').endsWith(tail) && names.split(',').some((n) => n.trim() === name)) return true;
  return false;
}

/**
 * The versions whose list `text` loops over: a literal argument (`stableUpdateKinds(2)`) is that
 * version; a variable one counts as both only when the code runs an `.each([...])` whose array
 * holds both 1 and 2 (the versions loop it comes from).
 */
function loopedVersions(text, name) {
  const versions = new Set();
  const bothLooped = /\.each\(\s*\[[^\]]*?\b1\b[^\]]*?\b2\b/.test(text);
  for (const [, arg] of text.matchAll(new RegExp(`(?:\\.each\\(\\s*|\\bof\\s+)${name}\\(\\s*([\\w.]+)\\s*\\)`, 'g'))) {
    if (arg === '1' || arg === '2') versions.add(Number(arg));
    else if (bothLooped) [1, 2].forEach((v) => versions.add(v));
  }
  return versions;
}

/** Whether code `text` names `row` through a shared list it imports, loops over and asserts on. */
export function sharedListNames(text, row) {
  if (!text.includes('expect(')) return false;
  return SHARED_LISTS.some(
    (list) =>
      list.group === row.group &&
      importsFrom(text, list.name, list.module) &&
      [...loopedVersions(text, list.name)].some((v) => row[`v${v}`] === 'stable'),
  );
}

/**
 * Whether the code of `text` (comments aside) names `row`: quotes one of its names, uses its
 * `Methods.<key>` constant, or loops over a shared list that holds it ({@link SHARED_LISTS}).
 */
export function mentions(source, row, constants) {
  const text = withoutComments(source);
  const quoted = rowNames(row).some((n) => ["'", '"', '`'].some((q) => text.includes(`${q}${n}${q}`)));
  if (quoted || sharedListNames(text, row)) return true;
  if (row.group !== 'methods') return false;
  return (constants.get(row.name) ?? []).some((key) => new RegExp(`\\bMethods\\.${key}\\b`).test(text));
}

export function loadClaims(root = ROOT) {
  return JSON.parse(readFileSync(join(root, CLAIMS_PATH), 'utf8'));
}

/** A cell's kind: 'filled' (test files), 'na', 'missing', or 'bad' (anything else). */
export function cellKind(cell) {
  if (Array.isArray(cell)) return cell.length > 0 && cell.every((f) => typeof f === 'string') ? 'filled' : 'bad';
  if (cell && typeof cell === 'object') {
    const keys = Object.keys(cell);
    if (keys.length !== 1) return 'bad';
    const [k] = keys;
    // a reason is one line: the doc lists it as one bullet
    const reason = cell[k];
    if ((k === 'na' || k === 'missing') && typeof reason === 'string' && reason.trim() !== '' && !reason.includes('\n'))
      return k;
  }
  return 'bad';
}

function cellProblems(row, layer, cell, root, readText, constants) {
  const where = `${row.group} ${row.name} / ${layer}`;
  const kind = cellKind(cell);
  if (kind === 'bad')
    return [`${where}: a cell is a list of test files, {"na": "one-line reason"} or {"missing": "one-line reason"}`];
  if (kind !== 'filled') return [];
  const problems = [];
  for (const file of cell) {
    if (!existsSync(join(root, file))) {
      problems.push(`${where}: ${file} does not exist`);
      continue;
    }
    if (!mentions(readText(file), row, constants))
      problems.push(`${where}: ${file} never names ${rowNames(row).join(' or ')}`);
  }
  return problems;
}

/**
 * Everything wrong with `claims` for `rows`: rows the claims lack or have in excess, layers a row
 * lacks or has in excess, cells of the wrong shape, claimed files that do not exist or never quote
 * the row's name. The gap budget of stable rows is the test's business (test/coverage-matrix.test.ts).
 */
export function claimProblems(rows, claims, root = ROOT) {
  const texts = new Map();
  const readText = (file) => {
    if (!texts.has(file)) texts.set(file, readFileSync(join(root, file), 'utf8'));
    return texts.get(file);
  };
  const constants = methodConstants(root);
  const problems = [];
  for (const group of ['methods', 'updates']) {
    const listed = claims[group] ?? {};
    const inSchema = new Set(rows.filter((r) => r.group === group).map((r) => r.name));
    for (const name of Object.keys(listed))
      if (!inSchema.has(name)) problems.push(`${group} ${name}: in ${CLAIMS_PATH} but in no schema`);
    for (const row of rows.filter((r) => r.group === group)) {
      const cells = listed[row.name];
      if (!cells) {
        problems.push(`${group} ${row.name}: in the schemas but not in ${CLAIMS_PATH}`);
        continue;
      }
      for (const layer of Object.keys(cells))
        if (!LAYER_KEYS.includes(layer)) problems.push(`${group} ${row.name}: unknown layer ${layer}`);
      for (const layer of LAYER_KEYS) {
        if (!(layer in cells)) problems.push(`${group} ${row.name} / ${layer}: no cell`);
        else problems.push(...cellProblems(row, layer, cells[layer], root, readText, constants));
      }
    }
  }
  return problems;
}

/** The stable cells claimed `missing`, as "group name layer" strings (the test's gap budget). */
export function stableGaps(rows, claims) {
  const gaps = [];
  for (const row of rows.filter((r) => r.stable))
    for (const layer of LAYER_KEYS)
      if (cellKind(claims[row.group]?.[row.name]?.[layer]) === 'missing')
        gaps.push(`${row.group} ${row.name} ${layer}`);
  return gaps;
}

const GROUPS = [
  ['methods', true, 'Stable methods', 'In the stable schema of at least one version'],
  ['methods', false, 'Unstable methods', 'Only in `schema.unstable.json`'],
  ['updates', true, 'Stable update kinds', 'The `sessionUpdate` kinds of a stable schema'],
  ['updates', false, 'Unstable update kinds', 'Kinds only in `schema.unstable.json`'],
];

function versionMark(row, version) {
  const m = row[version];
  if (!m) return '-';
  const wire = row.wire[version] ? ` (\`${row.wire[version]}\`)` : '';
  return `${m === 'stable' ? 'stable' : 'unstable'}${wire}`;
}

function cellMark(cell) {
  const kind = cellKind(cell);
  if (kind === 'filled') return `✓${cell.length > 1 ? cell.length : ''}`;
  if (kind === 'na') return 'n/a';
  if (kind === 'missing') return '**gap**';
  return '??';
}

function groupTable(rows, claims, group) {
  const head = group === 'methods' ? ['method', 'direction', 'v1', 'v2'] : ['kind', 'v1', 'v2'];
  const lines = [
    `| ${[...head, ...LAYERS.map(([, title]) => title)].join(' | ')} |`,
    `|${[...head, ...LAYERS].map(() => ' --- ').join('|')}|`,
  ];
  for (const row of rows) {
    const cells = claims[row.group]?.[row.name] ?? {};
    const lead = [`\`${row.name}\``];
    if (group === 'methods') lead.push(`${row.directions.join(', ')} (${row.forms.join(', ')})`);
    lead.push(versionMark(row, 'v1'), versionMark(row, 'v2'));
    lines.push(`| ${[...lead, ...LAYER_KEYS.map((l) => cellMark(cells[l]))].join(' | ')} |`);
  }
  return lines;
}

function reasons(rows, claims, kind, stable) {
  const out = [];
  for (const row of rows.filter((r) => stable === undefined || r.stable === stable))
    for (const layer of LAYER_KEYS) {
      const cell = claims[row.group]?.[row.name]?.[layer];
      if (cellKind(cell) === kind) out.push(`- \`${row.name}\` / ${layer}: ${cell[kind]}`);
    }
  return out;
}

function summary(rows, claims) {
  const lines = ['| layer | filled | n/a | gap |', '| --- | --- | --- | --- |'];
  for (const [layer, title] of LAYERS) {
    const n = { filled: 0, na: 0, missing: 0 };
    for (const row of rows) {
      const kind = cellKind(claims[row.group]?.[row.name]?.[layer]);
      if (kind in n) n[kind] += 1;
    }
    lines.push(`| ${title} | ${n.filled} | ${n.na} | ${n.missing} |`);
  }
  return lines;
}

const PREAMBLE = `# Protocol coverage matrix

Generated by \`npm run coverage\` (scripts/coverage.mjs) from the schemas of the pinned
\`@agentclientprotocol/sdk\` and the hand-edited claims in [coverage-claims.json](coverage-claims.json);
do not edit this file by hand. \`test/coverage-matrix.test.ts\` fails when a schema row is not in the
claims (or the reverse), when this file is stale, when a claimed test file does not exist or its
code (comments aside) never names the row, and when a stable row has a gap that is not in its budget of known gaps.

Rows: every method and notification (\`x-method\` defs; direction from \`x-side\`) and every
\`sessionUpdate\` kind of \`schema/v1|v2/schema.json\` and \`schema.unstable.json\`. A method both
versions have is one row; v2 \`auth/login\` and \`auth/logout\` are the rows \`authenticate\` and
\`logout\` (the codec renames them). Update kinds are wire names: v1 \`tool_call\` and \`plan\` are
their own rows (the v1 codec maps them to the neutral \`tool_call_update\` and
\`plan_update\`).

Legend: ✓ a test exercises the row in that layer (✓2: two tests), n/a the layer has no such thing
(reason below), **gap** nothing exercises it yet (reason below).

Editing the claims: \`docs/coverage-claims.json\` has \`methods\` and \`updates\`, one entry per row,
and in each one cell per layer (\`${LAYER_KEYS.join('`, `')}\`). A cell is
\`["test/some.test.ts"]\` (test files that exercise the row in that layer; each must name the row:
quote it, e.g. \`'session/prompt'\` or \`"plan_update"\`, use its \`Methods.<key>\` constant, or
import a list of \`test/support/schema-lists.ts\` that holds it and loop over it with assertions),
\`{"na": "one-line reason"}\` or \`{"missing": "one-line reason"}\`. A stable row's new gap must also go
into \`KNOWN_GAPS\` of the test, and a filled one out of it.
Then run \`npm run coverage\`.
`;

/** docs/coverage.md for `rows` and `claims`. */
export function renderDoc(rows, claims) {
  const parts = [PREAMBLE];
  for (const [group, stable, title, what] of GROUPS) {
    const these = rows.filter((r) => r.group === group && r.stable === stable);
    parts.push(`## ${title} (${these.length})\n\n${what}.\n\n${groupTable(these, claims, group).join('\n')}\n`);
  }
  parts.push(`## Summary per layer (${rows.length} rows)\n\n${summary(rows, claims).join('\n')}\n`);
  parts.push(
    `## Gaps in stable rows\n\nThe to-do list of issue 26 (stable rows: every cell filled).\n\n${reasons(rows, claims, 'missing', true).join('\n') || 'None.'}\n`,
  );
  parts.push(`## Gaps in unstable rows\n\n${reasons(rows, claims, 'missing', false).join('\n') || 'None.'}\n`);
  parts.push(`## Not applicable\n\n${reasons(rows, claims, 'na').join('\n') || 'None.'}\n`);
  return parts.join('\n');
}

async function main() {
  const rows = schemaRows();
  const claims = loadClaims();
  const problems = claimProblems(rows, claims);
  const doc = renderDoc(rows, claims);
  if (process.argv.includes('--check')) {
    const current = existsSync(join(ROOT, DOC_PATH)) ? readFileSync(join(ROOT, DOC_PATH), 'utf8') : '';
    if (current !== doc) problems.push(`${DOC_PATH} is stale: run npm run coverage`);
    for (const p of problems) console.error(p);
    process.exit(problems.length ? 1 : 0);
  }
  for (const p of problems) console.error(p);
  writeFileSync(join(ROOT, DOC_PATH), doc);
  console.log(`wrote ${DOC_PATH} (${rows.length} rows)${problems.length ? `; ${problems.length} problems` : ''}`);
  if (problems.length) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();

import { PROBED_METHODS, type MatrixReport, type MatrixRow } from './matrix.js';

/**
 * The columns: first those of the registry's own daily matrix (its `.protocol-matrix/snapshots/*.md`
 * table: Agent, Version, Dist, Init, Auth, Capabilities; and its method probe summary: one
 * column per probed method), so the two can be compared row by row; then acp-kit's conformance columns.
 */
const COLUMNS: Array<[string, (r: MatrixRow) => string]> = [
  ['Agent', (r) => r.id],
  ['Version', (r) => r.registryVersion],
  ['Dist', (r) => r.distribution],
  ['Init', (r) => (r.initialize ? (r.initialize.status === 'success' ? 'ok' : r.initialize.status) : '-')],
  ['Auth', (r) => (r.authMethods && r.authMethods.length > 0 ? r.authMethods.join(', ') : '-')],
  ['Capabilities', capabilities],
  ...PROBED_METHODS.map((m): [string, (r: MatrixRow) => string] => [m, (r) => r.methodProbes?.[m].status ?? '-']),
  ['Installed', (r) => r.installedVersion ?? '-'],
  ['Protocol (v1 asked)', (r) => (r.protocolVersion != null ? String(r.protocolVersion) : '-')],
  ['Negotiated (v2 offered)', (r) => (r.negotiatedProtocol !== null ? String(r.negotiatedProtocol) : '-')],
  ['Verdict', (r) => (r.verdictDetail ? `${r.verdict}: ${r.verdictDetail}` : r.verdict)],
  ['Failing IDs', (r) => r.failingIds.join(', ') || '-'],
  ['Time (s)', (r) => r.durationSeconds.toFixed(1)],
];

/** The registry's wording: the capabilities advertised in `initialize`. */
function capabilities(r: MatrixRow): string {
  const c = r.capabilities;
  if (!c) return '-';
  const names = [
    c.loadSession && 'loadSession',
    c.sessionList && 'session/list',
    c.sessionFork && 'session/fork',
    c.sessionResume && 'session/resume',
    c.sessionStop && 'session/stop',
    c.setModel && 'setModel',
  ].filter((n): n is string => typeof n === 'string');
  return names.join(', ') || '-';
}

const cells = (r: MatrixRow): string[] => COLUMNS.map(([, f]) => f(r));

/** A matrix limited with --only/--skip says so: its verdicts cover only those requirements. */
const limits = (m: MatrixReport): string =>
  `${m.only ? `; checker limited to ${m.only.join(', ')}` : ''}${m.skip ? `; checker skipped ${m.skip.join(', ')}` : ''}`;

const heading = (m: MatrixReport): string =>
  `Registry: ${m.registry.location}${m.registry.date ? ` (${m.registry.date.slice(0, 10)})` : ''}; platform ${m.platform}; generated ${m.generatedAt}; ${m.rows.length} agents in ${m.totalSeconds} s${limits(m)}`;

/** A Markdown table (pipes in cells escaped). */
export function matrixMarkdown(m: MatrixReport): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const line = (cols: string[]) => `| ${cols.map(esc).join(' | ')} |`;
  return [
    '# ACP agent conformance matrix',
    '',
    heading(m),
    '',
    line(COLUMNS.map(([h]) => h)),
    line(COLUMNS.map(() => '---')),
    ...m.rows.map((r) => line(cells(r))),
    '',
  ].join('\n');
}

/** The whole report as JSON (each row has every field of the registry's snapshot JSON, plus the checks). */
export function matrixJson(m: MatrixReport): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}

const html = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One static page, no script and no outside resource: a project can publish it as is. */
export function matrixHtml(m: MatrixReport): string {
  const verdictClass = (r: MatrixRow) => r.verdict.replace(/\s+/g, '-');
  const rows = m.rows
    .map(
      (r) =>
        `<tr class="${html(verdictClass(r))}">${cells(r)
          .map((c) => `<td>${html(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ACP agent conformance matrix</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
tr.conformant td:nth-last-child(3) { background: #e6f6e6; }
tr.not-conformant td:nth-last-child(3), tr.install-failed td:nth-last-child(3), tr.not-started td:nth-last-child(3) { background: #fbe7e7; }
tr.auth-required td:nth-last-child(3) { background: #fff6d6; }
</style>
</head>
<body>
<h1>ACP agent conformance matrix</h1>
<p>${html(heading(m))}</p>
<table>
<thead><tr>${COLUMNS.map(([h]) => `<th>${html(h)}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body>
</html>
`;
}

/** The format of an output file by its extension: .md, .json or .html. */
export function matrixFormatOf(file: string): 'md' | 'json' | 'html' | undefined {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  return ext === 'md' || ext === 'markdown'
    ? 'md'
    : ext === 'json'
      ? 'json'
      : ext === 'html' || ext === 'htm'
        ? 'html'
        : undefined;
}

export function formatMatrix(m: MatrixReport, format: 'md' | 'json' | 'html'): string {
  return format === 'json' ? matrixJson(m) : format === 'html' ? matrixHtml(m) : matrixMarkdown(m);
}

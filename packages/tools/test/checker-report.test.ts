/**
 * The checker's machine-readable reports: `--json` (one JSON document) and `--junit FILE` (JUnit
 * XML: one suite per protocol version, one testcase per requirement, failures typed by tier), for
 * `check agent` and `check client`. The formats are checked on real runs in-process (fixture agent
 * and fixture client), then once through the CLI for the exit codes and the file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_CASES } from '../src/checker/cases/index.js';
import { CLIENT_CASES } from '../src/checker/client/cases.js';
import { runClientChecks } from '../src/checker/client/runner.js';
import { formatJson, formatJunit } from '../src/checker/report.js';
import { runChecks, type CheckRun } from '../src/checker/runner.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const BIN = here('../../../bin/acp-kit.js');
const AGENT = here('../../../test/fixtures/checker/agent.mjs');
const CLIENT = here('../../../test/fixtures/checker/client.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-report-')));
  dirs.push(d);
  return d;
};

/** An XML element as the strict little parser below builds it. */
interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
function decode(s: string, where: string): string {
  if (/[<]/.test(s)) throw new Error(`raw < in ${where}`);
  return s.replace(/&([^;]*);?/g, (m, name: string) => {
    if (!m.endsWith(';') || !(name in ENTITIES)) throw new Error(`bad entity ${m} in ${where}`);
    return ENTITIES[name]!;
  });
}

/** Parses well-formed XML (prolog, elements, attributes, text, the five entities); throws on anything else. */
function parseXml(xml: string): XmlNode {
  let i = 0;
  const prolog = /^<\?xml [^?]*\?>\s*/.exec(xml);
  if (!prolog) throw new Error('no XML declaration');
  i = prolog[0].length;
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlNode[] = [root];
  while (i < xml.length) {
    if (xml[i] !== '<') {
      const end = xml.indexOf('<', i);
      const raw = xml.slice(i, end < 0 ? xml.length : end);
      stack.at(-1)!.text += decode(raw, `text of <${stack.at(-1)!.name}>`);
      i = end < 0 ? xml.length : end;
      continue;
    }
    const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(xml.slice(i));
    if (close) {
      const open = stack.pop()!;
      if (open.name !== close[1]) throw new Error(`</${close[1]}> closes <${open.name}>`);
      i += close[0].length;
      continue;
    }
    const tag = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"]*")*)\s*(\/?)>/.exec(xml.slice(i));
    if (!tag) throw new Error(`malformed tag at ${i}: ${xml.slice(i, i + 60)}`);
    const node: XmlNode = { name: tag[1]!, attrs: {}, children: [], text: '' };
    for (const a of tag[2]!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (a[1]! in node.attrs) throw new Error(`duplicate attribute ${a[1]}`);
      node.attrs[a[1]!] = decode(a[2]!, `attribute ${a[1]}`);
    }
    stack.at(-1)!.children.push(node);
    if (!tag[3]) stack.push(node);
    i += tag[0].length;
  }
  if (stack.length !== 1) throw new Error(`<${stack.at(-1)!.name}> is not closed`);
  if (root.children.length !== 1 || root.text.trim() !== '') throw new Error('a document has exactly one root element');
  return root.children[0]!;
}

/** The JSON report's documented shape, and its agreement with the run it reports. */
function expectJsonShape(
  doc: Record<string, unknown>,
  run: CheckRun,
  subject: 'agent' | 'client',
  label: string,
): void {
  expect(Object.keys(doc).sort()).toEqual([subject, 'cases', 'conformant', 'ms', 'protocols', 'requirements'].sort());
  expect(doc[subject]).toBe(label);
  expect(doc.conformant).toBe(run.conformant);
  expect(doc.protocols).toEqual(run.protocols);
  const reqs = doc.requirements as Array<Record<string, unknown>>;
  expect(reqs.map((r) => `${r.protocol} ${r.id} ${r.status}`)).toEqual(
    run.requirements.map((r) => `${r.protocol} ${r.id} ${r.status}`),
  );
  for (const r of reqs) {
    expect(Object.keys(r).sort()).toEqual(['cases', 'failures', 'id', 'protocol', 'status', 'text', 'tier']);
    expect(['pass', 'fail', 'not-checked']).toContain(r.status);
    expect(['MUST', 'SHOULD', 'MAY', 'info']).toContain(r.tier);
    for (const f of r.failures as Array<Record<string, unknown>>) {
      expect(f).toMatchObject({ id: r.id, ok: false, case: expect.any(String), message: expect.any(String) });
      expect(Array.isArray(f.excerpt)).toBe(true);
    }
  }
  const cases = doc.cases as Array<Record<string, unknown>>;
  expect(cases).toHaveLength(run.cases.length);
  for (const [i, c] of cases.entries()) {
    expect(c).not.toHaveProperty('checks');
    expect(c).toMatchObject({
      name: run.cases[i]!.name,
      protocol: run.cases[i]!.protocol,
      status: run.cases[i]!.status,
      failed: run.cases[i]!.checks.filter((x) => !x.ok).map((x) => x.id),
    });
  }
}

/** The JUnit document agrees with the run: suites, testcase names, failures, skips, and the evidence. */
function expectJunit(xml: string, run: CheckRun, subject: 'agent' | 'client'): XmlNode {
  const root = parseXml(xml);
  expect(root.name).toBe('testsuites');
  expect(root.attrs.name).toMatch(new RegExp(`^acp-kit check ${subject}: `));
  expect(root.children.map((s) => s.attrs.name)).toEqual(run.protocols.map((v) => `ACP v${v}`));
  for (const [k, suite] of root.children.entries()) {
    const v = run.protocols[k]!;
    const reqs = run.requirements.filter((r) => r.protocol === v);
    expect(suite.name).toBe('testsuite');
    expect(suite.children.map((t) => t.name)).toEqual(reqs.map(() => 'testcase'));
    expect(suite.children.map((t) => t.attrs.name)).toEqual(reqs.map((r) => `${r.id} ${r.text}`));
    expect(suite.children.map((t) => t.attrs.classname)).toEqual(reqs.map((r) => `v${v}.${r.tier}`));
    expect(Number(suite.attrs.tests)).toBe(reqs.length);
    expect(Number(suite.attrs.failures)).toBe(
      suite.children.filter((t) => t.children.some((c) => c.name === 'failure')).length,
    );
    expect(Number(suite.attrs.skipped)).toBe(
      suite.children.filter((t) => t.children.some((c) => c.name === 'skipped')).length,
    );
    for (const [j, t] of suite.children.entries()) {
      const r = reqs[j]!;
      const failure = t.children.find((c) => c.name === 'failure');
      expect(!!failure, r.id).toBe(r.status === 'fail');
      expect(
        t.children.some((c) => c.name === 'skipped'),
        r.id,
      ).toBe(r.status === 'not-checked');
      if (failure) {
        expect(failure.attrs.type).toBe(r.tier);
        expect(failure.attrs.message).toBe(r.failures[0]!.message);
        // the body carries every failure with its case and the transcript lines, unescaped back to the original
        for (const f of r.failures) {
          expect(failure.text).toContain(`[${f.case}] ${f.message}`);
          for (const line of f.excerpt ?? []) expect(failure.text).toContain(line);
        }
      }
    }
  }
  return root;
}

describe('check reports (in-process)', () => {
  it('check agent: --json and --junit describe the same run, failures with their evidence', async () => {
    const cwd = scratch();
    const cases = ALL_CASES.filter((c) => ['jsonrpc/ids', 'initialize/basic', 'sessions/load-v1'].includes(c.name));
    const run = await runChecks(
      {
        command: process.execPath,
        args: [AGENT],
        cwd,
        env: { BREAK: 'id-not-echoed', FIXTURE_STORE: cwd },
        timeoutMs: 8000,
        prompt: 'go',
        clientVersion: 'test',
      },
      { protocols: [1, 2], concurrency: 4, cases },
    );
    // the run has all three statuses, so every branch of the formats is exercised
    expect(new Set(run.requirements.map((r) => r.status))).toEqual(new Set(['pass', 'fail', 'not-checked']));
    expectJsonShape(JSON.parse(formatJson(run, 'node agent.mjs')), run, 'agent', 'node agent.mjs');
    const root = expectJunit(formatJunit(run, 'node agent.mjs <"quoted"> & more'), run, 'agent');
    expect(root.attrs.name).toBe('acp-kit check agent: node agent.mjs <"quoted"> & more');
    const echoed = root.children[0]!.children.find((t) => t.attrs.name!.startsWith('ACP-ALL-RPC-03 '))!;
    expect(echoed.children[0]!.text).toContain('"id":"'); // JSON quotes survive the escaping
  }, 60_000);

  it('check client: --json and --junit describe the same run', async () => {
    const cases = CLIENT_CASES.filter((c) =>
      ['client/non-json-line', 'client/fs-roots', 'client/basic'].includes(c.name),
    );
    const run = await runClientChecks(
      {
        command: process.execPath,
        args: [CLIENT],
        env: { BREAK: 'dies-on-non-json' },
        timeoutMs: 8000,
        agentVersion: 'test',
      },
      { protocols: [1], concurrency: 3, cases },
    );
    expect(new Set(run.requirements.map((r) => r.status))).toEqual(new Set(['pass', 'fail', 'not-checked']));
    expectJsonShape(JSON.parse(formatJson(run, 'node client.mjs', 'client')), run, 'client', 'node client.mjs');
    const root = expectJunit(formatJunit(run, 'node client.mjs', 'client'), run, 'client');
    const failedNames = root.children.flatMap((s) =>
      s.children.filter((t) => t.children.some((c) => c.name === 'failure')).map((t) => t.attrs.name!.split(' ')[0]),
    );
    expect(failedNames).toEqual(['ACP-ALL-TRANS-05']);
  }, 60_000);
});

describe('check reports (CLI)', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [BIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', ...env },
      timeout: 50_000,
    });

  it('check client --json --junit FILE: exit 1 with a failure in both, exit 0 when conformant', () => {
    const dir = scratch();
    const junit = join(dir, 'report.xml');
    const bad = cli(
      [
        'check',
        'client',
        '--protocol',
        '1',
        '--only',
        'ACP-ALL-TRANS-05',
        '--json',
        '--junit',
        junit,
        '--',
        process.execPath,
        CLIENT,
      ],
      { BREAK: 'dies-on-non-json' },
    );
    expect(bad.status, bad.stderr).toBe(1);
    const doc = JSON.parse(bad.stdout.split('\n')[0]!) as {
      client: string;
      conformant: boolean;
      requirements: Array<{ id: string; status: string }>;
    };
    expect(doc.conformant).toBe(false);
    expect(doc.requirements.map((r) => `${r.id} ${r.status}`)).toEqual(['ACP-ALL-TRANS-05 fail']);
    const root = parseXml(readFileSync(junit, 'utf8'));
    expect(root.children[0]!.attrs).toMatchObject({ name: 'ACP v1', tests: '1', failures: '1' });
    const good = cli([
      'check',
      'client',
      '--protocol',
      '1',
      '--only',
      'ACP-ALL-TRANS-05',
      '--json',
      '--',
      process.execPath,
      CLIENT,
    ]);
    expect(good.status, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout.split('\n')[0]!)).toMatchObject({
      conformant: true,
      requirements: [{ id: 'ACP-ALL-TRANS-05', status: 'pass' }],
    });
  }, 60_000);

  it('check agent --json --junit FILE: exit 1 and the failure in both', () => {
    const dir = scratch();
    const junit = join(dir, 'agent.xml');
    const r = cli(
      [
        'check',
        'agent',
        '--protocol',
        '1',
        '--only',
        'ACP-ALL-RPC-03',
        '--json',
        '--junit',
        junit,
        '--',
        process.execPath,
        AGENT,
      ],
      { BREAK: 'id-not-echoed', FIXTURE_STORE: dir },
    );
    expect(r.status, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout.split('\n')[0]!) as {
      agent: string;
      requirements: Array<{ id: string; status: string }>;
    };
    expect(doc.requirements.map((x) => `${x.id} ${x.status}`)).toEqual(['ACP-ALL-RPC-03 fail']);
    const root = parseXml(readFileSync(junit, 'utf8'));
    const tc = root.children[0]!.children[0]!;
    expect(tc.attrs.name!.startsWith('ACP-ALL-RPC-03 ')).toBe(true);
    expect(tc.children.map((c) => c.name)).toEqual(['failure']);
  }, 60_000);

  it('check client without a command is a usage error (exit 2) that says what to do', () => {
    const r = cli(['check', 'client']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/client/);
  });
});

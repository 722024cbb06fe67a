// Issue 24 item 9, "Done when: metrics are scraped in a test": `acp-kit serve --metrics-port 0` as a
// real process (bin/acp-kit.js, from dist/), a prompt turn over a loopback WebSocket, then GET
// /metrics in Prometheus text format must show the turn under the exact method names (counters and
// a latency histogram), the file store's timings, and `--log-format json` lines on stderr must
// parse, carry the session id, and never the token.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { rawTurn } from './support/raw-turn.js';
import { startServe } from './support/serve-process.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const procs: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-metrics-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  return dir;
}

/** The value of the sample `name{labels}` in a Prometheus text exposition (labels in any order). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}

it('serve --metrics-port 0: a turn moves the per-method counters and histogram on /metrics', async () => {
  const dir = tempDir();
  const serve = await startServe(
    ['--token-file', join(dir, 'token'), '--model', 'demo', '--metrics-port', '0', '--log-format', 'json', '--verbose'],
    { procs, env: { ...process.env, ACP_KIT_DATA_DIR: dir } },
  );
  const metrics = serve.metrics ?? '';
  expect(metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const before = await (await fetch(metrics)).text();
  expect(sample(before, 'acp_server_requests_total', { method: 'session/prompt', outcome: 'ok' })).toBeUndefined();

  const turn = await rawTurn(serve.ws, TOKEN);
  expect(turn.stopReason).toBe('end_turn');
  const res = await fetch(metrics);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const after = await res.text();
  for (const method of ['initialize', 'session/new', 'session/prompt']) {
    expect(sample(after, 'acp_server_requests_total', { method, outcome: 'ok' }), method).toBe(1);
    expect(sample(after, 'acp_server_request_duration_count', { method, outcome: 'ok' }), method).toBe(1);
    expect(sample(after, 'acp_server_request_duration_sum', { method, outcome: 'ok' })).toBeGreaterThan(0);
  }
  expect(sample(after, 'acp_server_turns_total', { stop_reason: 'end_turn' })).toBe(1);
  expect(sample(after, 'acp_store_operation_duration_count', { store: 'file', operation: 'append' })).toBeGreaterThan(
    0,
  );
  expect(after).toContain('acp_server_unread_bytes');

  // json logs: every stderr line an object; the access log names the session; the token never appears
  const lines = serve.stderr().trim().split('\n');
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const r of records) expect(Object.keys(r).slice(0, 3)).toEqual(['time', 'level', 'msg']);
  const prompt = records.find((r) => r.method === 'session/prompt');
  expect(prompt?.session).toBe(turn.sessionId);
  expect(typeof prompt?.connection).toBe('string');
  expect(serve.stderr()).not.toContain(TOKEN);
});

it('serve --log-format json refuses to start with a generated token (it would have to log it)', async () => {
  const dir = tempDir();
  await expect(
    startServe(['--log-format', 'json', '--metrics-port', '0'], {
      procs,
      env: { ...process.env, ACP_KIT_DATA_DIR: dir },
    }),
  ).rejects.toThrow(/never logs a token/);
});

it('the serve logger masks every accepted token, in json and text, and reads fields from a diagnostic line', async () => {
  const { serveLogger } = await import('../src/cli/commands/serve-log.js');
  for (const format of ['json', 'text'] as const) {
    const out: string[] = [];
    const logger = serveLogger(format, true, ['short-token-1', TOKEN], (l) => out.push(l));
    // e.g. a stdio agent echoing its environment on stderr
    logger.line(`[agent 1234abcd] env: AUTH=${TOKEN} OTHER=short-token-1`);
    expect(out.join(''), format).not.toContain(TOKEN);
    expect(out.join(''), format).not.toContain('short-token-1');
    expect(out.join(''), format).toContain('AUTH=***');
  }
  const out: string[] = [];
  serveLogger('json', true, [], (l) => out.push(l)).line(
    'connection 0f8fad5b-d9cb-469f-a165-70867728950e: session s-42: could not take its lease',
  );
  const r = JSON.parse(out[0] ?? '') as Record<string, unknown>;
  expect(r.connection).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  expect(r.session).toBe('s-42');
});

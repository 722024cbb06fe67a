/**
 * Issue 26 item 1, the inspector column: every stable method and `sessionUpdate` kind a real
 * session produces is shown in the inspector's timeline with its kind and label. The frames are
 * real: acp-kit's client drives the scripted e2e agent (test/fixtures/e2e-agent.mjs, a real
 * process; the scripted agent for login and logout, the url-eliciting fixture agent for
 * elicitation/complete, the official SDK's v1 agent with legacy modes for session/set_mode) through `acp-kit proxy --record` (a real process), once per protocol version; the
 * capture goes through the inspector's loader and model (`loadCapture`, what the server serves)
 * and the page's row building (`displayRows` over a `RowStore`), and each row is read the way
 * TimelineRow renders it: kind, method, update kind. Needs dist (the global setup builds it).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerElicitations,
  connect,
  urlConsent,
  type ClientConnection,
  type ClientSession,
} from '../../client/src/index.js';
import { selectOption, type PermissionPolicy } from '../../client/src/services/permission-policy.js';
import { ROW } from '../src/inspector/api-types.js';
import { loadCapture } from '../src/inspector/index.js';
import type { Data } from '../src/inspector/ui/data.js';
import { displayRows } from '../src/inspector/ui/display.js';
import { RowStore } from '../src/inspector/ui/row-store.js';
import { tempDir } from '../../../test/support/temp.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const E2E_AGENT = fileURLToPath(new URL('../../../test/fixtures/e2e-agent.mjs', import.meta.url));

const conns: ClientConnection[] = [];
afterEach(async () => {
  for (const c of conns.splice(0)) await c.close().catch(() => undefined);
});

/** One timeline line as TimelineRow renders it: `kind`, then the method and the update kind. */
interface Shown {
  dir: 'E→A' | 'A→E';
  kind: string;
  method: string;
  update: string | undefined;
}

/** The capture's timeline, every run expanded and every kind shown, read like TimelineRow reads it. */
async function timeline(capture: string): Promise<Shown[]> {
  const model = await loadCapture(capture);
  const data: Data = {
    strings: model.strings,
    store: new RowStore(),
    finished: true,
    analysisComplete: true,
    version: 0,
  };
  for (const r of model.rows) data.store.put(r);
  const expanded = new Set(model.rows.map((r) => r[ROW.seq]));
  const kinds = new Set(['request', 'notification', 'response', 'error', 'invalid']);
  const d = displayRows(undefined, data, {
    kinds,
    method: '',
    session: '',
    onlyViolations: false,
    matches: undefined,
    expanded,
  });
  const out: Shown[] = [];
  for (let k = 0; k < d.count; k++) {
    const first = d.row(k)?.first;
    if (first === undefined) throw new Error(`no display row ${k}`);
    const at = (field: number): number => data.store.get(first, field);
    const str = (i: number): string | undefined => (i >= 0 ? data.strings[i] : undefined);
    out.push({
      dir: at(ROW.dir) === 0 ? 'E→A' : 'A→E',
      kind: str(at(ROW.kind)) ?? '',
      method: str(at(ROW.method)) ?? '',
      update: str(at(ROW.update)),
    });
  }
  return out;
}

const text = (t: string) => ({ type: 'text', text: t });
const send = (update: Record<string, unknown>) => ({ send: update });
const script = (actions: unknown[]): string => JSON.stringify({ actions });

/**
 * Allows every question except "Hang?", which it leaves open until the agent withdraws it; `asked`
 * resolves when that one arrives.
 */
function hangingPolicy(): { policy: PermissionPolicy; asked: Promise<void> } {
  let arrived: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (arrived = resolve));
  const policy: PermissionPolicy = async (request, ctx) => {
    if (request.title !== 'Hang?') return selectOption(request, 'allow');
    arrived();
    return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ outcome: 'cancelled' })));
  };
  return { policy, asked };
}

/** Every neutral update kind an agent sends in a turn (each becomes its wire kind for the version). */
function everyUpdate(): unknown[] {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    send({ sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('hmm') }),
    send({ sessionUpdate: 'agent_thought', messageId: 't2', content: [text('whole thought')] }),
    send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('Hel') }),
    send({ sessionUpdate: 'agent_message', messageId: 'm2', content: [text('whole')] }),
    send({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', title: 'Run', kind: 'execute', status: 'pending' }),
    send({
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 'tc1',
      content: { type: 'content', content: text('x') },
    }),
    send({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'completed' }),
    send({
      sessionUpdate: 'terminal_update',
      terminalId: 'term1',
      command: 'ls',
      cwd: '/tmp',
      output: { data: b64('a') },
    }),
    send({ sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64('b') }),
    send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p', entries: [] } }),
    send({ sessionUpdate: 'usage_update', used: 100, size: 1000 }),
    send({ sessionUpdate: 'session_info_update', title: 'First' }),
    send({ sessionUpdate: 'current_mode_update', currentModeId: 'code' }),
    send({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'test', description: 'Run' }] }),
    send({ sessionUpdate: 'notice', severity: 'warning', title: 'Heads up', description: 'rate limited' }),
    send({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' }),
    send({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('summary') }),
    send({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' }),
  ];
}

/** v1 only: the agent's requests to the client's file system and terminals, served by acp-kit's client. */
function clientServiceRequests(sessionId: string, dir: string): unknown[] {
  const req = (method: string, params: Record<string, unknown>) => ({
    clientRequest: method,
    params: { sessionId, ...params },
  });
  const file = join(dir, 'notes.txt');
  return [
    req('fs/write_text_file', { path: file, content: 'hello' }),
    req('fs/read_text_file', { path: file }),
    req('terminal/create', { command: process.execPath, args: ['-e', 'process.stdout.write("hi")'], cwd: dir }),
  ];
}

/** The id of the terminal the client created, from its answer the agent reported (`result {...}`). */
function terminalId(s: ClientSession): string {
  const reported = s.state.message('agent', 'client-req')?.text ?? '';
  const hit = /result \{"terminalId":"([^"]+)"\}/.exec(reported);
  if (!hit?.[1]) throw new Error(`the agent reported no terminal id: ${reported}`);
  return hit[1];
}

/** Drives one real session of every kind through `acp-kit proxy --record`; returns the capture. */
async function record(v: 1 | 2): Promise<string> {
  const dir = tempDir(`acp-inspector-rows-v${v}-`);
  const capture = join(dir, 'cap.ndjson');
  const { policy, asked } = hangingPolicy();
  const conn = await connect({
    command: process.execPath,
    args: [BIN, 'proxy', '--record', capture, '--', process.execPath, E2E_AGENT],
    env: { ...process.env, E2E_STORE_DIR: join(dir, 'store') },
    protocol: v,
    permissionPolicy: policy,
    fileSystem: true,
    terminals: true,
  });
  conns.push(conn);
  const s = await conn.newSession({ cwd: dir });
  await s.setConfigOption('fast', true);
  await conn.listAllSessions();
  const r = await s.prompt(
    script([
      ...everyUpdate(),
      ...(v === 1 ? clientServiceRequests(s.sessionId, dir) : []),
      { ask: { title: 'Write?', options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }] }, as: 'write' },
    ]),
  );
  expect(r.stopReason).toBe('end_turn');
  if (v === 1) {
    const id = terminalId(s);
    const req = (method: string) => ({ clientRequest: method, params: { sessionId: s.sessionId, terminalId: id } });
    await s.prompt(
      script([req('terminal/wait_for_exit'), req('terminal/output'), req('terminal/kill'), req('terminal/release')]),
    );
  }
  // a question left open, withdrawn by the agent when the turn is cancelled ($/cancel_request); in
  // v2 the client first cancels a tool call and a terminal that advertise it
  const cancellable =
    v === 2
      ? [
          send({
            sessionUpdate: 'tool_call_update',
            toolCallId: 'tc-c',
            title: 'Long',
            status: 'in_progress',
            capabilities: { cancel: {} },
          }),
          send({
            sessionUpdate: 'terminal_update',
            terminalId: 'term-c',
            command: 'sleep',
            cwd: dir,
            capabilities: { cancel: {} },
          }),
        ]
      : [];
  const hanging = s.prompt(
    script([
      ...cancellable,
      { ask: { title: 'Hang?', options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }] }, as: 'hang' },
    ]),
  );
  await asked;
  if (v === 2) {
    // the e2e agent registers no way to cancel them: its answer is an error, the requests are on the wire
    await expect(s.cancelToolCall('tc-c')).rejects.toThrow(/not a cancellable tool call/);
    await expect(s.cancelTerminal('term-c')).rejects.toThrow(/not a cancellable terminal/);
  }
  await s.cancel();
  expect((await hanging).stopReason).toBe('cancelled');
  await conn.closeSession(s.sessionId);
  const again =
    v === 1 ? await conn.loadSession(s.sessionId, { cwd: dir }) : await conn.resumeSession(s.sessionId, { cwd: dir });
  await conn.closeSession(again.sessionId);
  await conn.deleteSession(again.sessionId);
  await conn.close();
  return capture;
}

const SCRIPTED_AGENT = fileURLToPath(new URL('../../../test/fixtures/agent-scripted.mjs', import.meta.url));

/** A login and a logout with the scripted agent offering auth methods, through `acp-kit proxy --record`. */
async function recordAuth(v: 1 | 2): Promise<string> {
  const dir = tempDir(`acp-inspector-auth-v${v}-`);
  const capture = join(dir, 'cap.ndjson');
  const conn = await connect({
    command: process.execPath,
    args: [BIN, 'proxy', '--record', capture, '--', process.execPath, SCRIPTED_AGENT],
    env: { ...process.env, AGENT_AUTH: '1', AGENT_STORE: 'memory' },
    protocol: v,
  });
  conns.push(conn);
  await conn.authenticate('token');
  await conn.logout();
  await conn.close();
  return capture;
}

const URL_AGENT = fileURLToPath(new URL('../../../test/fixtures/chat-url-agent.mjs', import.meta.url));

/** A url elicitation the client accepts and the agent then completes, through `acp-kit proxy --record`. */
async function recordUrl(v: 1 | 2): Promise<string> {
  const dir = tempDir(`acp-inspector-url-v${v}-`);
  const capture = join(dir, 'cap.ndjson');
  const conn = await connect({
    command: process.execPath,
    args: [BIN, 'proxy', '--record', capture, '--', process.execPath, URL_AGENT],
    protocol: v,
    elicitation: answerElicitations({}, { url: urlConsent({ consent: true, print: () => undefined }) }),
  });
  conns.push(conn);
  const s = await conn.newSession({ cwd: dir });
  expect((await s.prompt('hi')).stopReason).toBe('end_turn');
  await conn.close();
  return capture;
}

const MODES_AGENT = fileURLToPath(new URL('../../../test/fixtures/cli-config-agent.mjs', import.meta.url));

/** v1 legacy modes: session/set_mode to an offered mode, with the official SDK's v1 agent offering them. */
async function recordModes(): Promise<string> {
  const dir = tempDir('acp-inspector-modes-v1-');
  const capture = join(dir, 'cap.ndjson');
  const conn = await connect({
    command: process.execPath,
    args: [BIN, 'proxy', '--record', capture, '--', process.execPath, MODES_AGENT],
    env: { ...process.env, CLI_CONFIG_FIXTURE: 'modes' },
    protocol: 1,
  });
  conns.push(conn);
  const s = await conn.newSession({ cwd: dir });
  await s.setMode('code');
  await conn.close();
  return capture;
}

type Dir = Shown['dir'];
const E2A: Dir = 'E→A';
const A2E: Dir = 'A→E';

/**
 * The stable methods, with the versions whose capture has them (the v2 wire names of the renamed
 * auth methods), the direction and the frame kind the timeline shows. A method's answer is a
 * `response`/`error` row without a label; the request row carries the name.
 */
const METHODS: Array<{ method: string; versions: Array<1 | 2>; dir: Dir; kind: 'request' | 'notification' }> = [
  { method: 'initialize', versions: [1, 2], dir: E2A, kind: 'request' },
  { method: 'authenticate', versions: [1], dir: E2A, kind: 'request' },
  { method: 'auth/login', versions: [2], dir: E2A, kind: 'request' },
  { method: 'logout', versions: [1], dir: E2A, kind: 'request' },
  { method: 'auth/logout', versions: [2], dir: E2A, kind: 'request' },
  { method: 'session/new', versions: [1, 2], dir: E2A, kind: 'request' },
  { method: 'session/set_config_option', versions: [1, 2], dir: E2A, kind: 'request' },
  { method: 'session/set_mode', versions: [1], dir: E2A, kind: 'request' },
  { method: 'session/list', versions: [1, 2], dir: E2A, kind: 'request' },
  { method: 'session/prompt', versions: [1, 2], dir: E2A, kind: 'request' },
  { method: 'session/update', versions: [1, 2], dir: A2E, kind: 'notification' },
  { method: 'session/request_permission', versions: [1, 2], dir: A2E, kind: 'request' },
  { method: 'elicitation/create', versions: [1, 2], dir: A2E, kind: 'request' },
  { method: 'elicitation/complete', versions: [1, 2], dir: A2E, kind: 'notification' },
  { method: 'fs/write_text_file', versions: [1], dir: A2E, kind: 'request' },
  { method: 'fs/read_text_file', versions: [1], dir: A2E, kind: 'request' },
  { method: 'terminal/create', versions: [1], dir: A2E, kind: 'request' },
  { method: 'terminal/wait_for_exit', versions: [1], dir: A2E, kind: 'request' },
  { method: 'terminal/output', versions: [1], dir: A2E, kind: 'request' },
  { method: 'terminal/kill', versions: [1], dir: A2E, kind: 'request' },
  { method: 'terminal/release', versions: [1], dir: A2E, kind: 'request' },
  { method: 'tool_call/cancel', versions: [2], dir: E2A, kind: 'request' },
  { method: 'terminal/cancel', versions: [2], dir: E2A, kind: 'request' },
  { method: 'session/cancel', versions: [1, 2], dir: E2A, kind: 'notification' },
  { method: '$/cancel_request', versions: [1, 2], dir: A2E, kind: 'notification' },
  { method: 'session/close', versions: [1, 2], dir: E2A, kind: 'request' },
  { method: 'session/load', versions: [1], dir: E2A, kind: 'request' },
  { method: 'session/resume', versions: [2], dir: E2A, kind: 'request' },
  { method: 'session/delete', versions: [1, 2], dir: E2A, kind: 'request' },
];

/** The stable wire update kinds, with the versions whose capture has them. */
const UPDATES: Array<{ update: string; versions: Array<1 | 2> }> = [
  { update: 'user_message_chunk', versions: [1] },
  { update: 'user_message', versions: [2] },
  { update: 'state_update', versions: [2] },
  { update: 'agent_thought_chunk', versions: [1, 2] },
  { update: 'agent_thought', versions: [2] },
  { update: 'agent_message_chunk', versions: [1, 2] },
  { update: 'agent_message', versions: [2] },
  { update: 'tool_call', versions: [1] },
  { update: 'tool_call_update', versions: [1, 2] },
  { update: 'tool_call_content_chunk', versions: [2] },
  { update: 'terminal_update', versions: [2] },
  { update: 'terminal_output_chunk', versions: [2] },
  { update: 'plan', versions: [1] },
  { update: 'plan_update', versions: [2] },
  { update: 'usage_update', versions: [1, 2] },
  { update: 'session_info_update', versions: [1, 2] },
  { update: 'current_mode_update', versions: [1] },
  { update: 'config_option_update', versions: [2] },
  { update: 'available_commands_update', versions: [1, 2] },
  { update: 'notice', versions: [1, 2] },
  { update: 'compaction_update', versions: [1, 2] },
  { update: 'compaction_summary_chunk', versions: [1, 2] },
];

describe('inspector: a real session of every stable row, shown in the timeline', () => {
  it.each([1, 2] as const)('v%i: each method and update kind has its row, with its kind and label', async (v) => {
    const capture = await record(v);
    const model = await loadCapture(capture);
    // the frames are a conforming session: nothing here is a violation the inspector would flag
    expect(model.violations, JSON.stringify(model.violations)).toEqual([]);
    const shown = [
      ...(await timeline(capture)),
      ...(await timeline(await recordAuth(v))),
      ...(await timeline(await recordUrl(v))),
      ...(v === 1 ? await timeline(await recordModes()) : []),
    ];
    for (const m of METHODS.filter((x) => x.versions.includes(v))) {
      // a session/update row also shows its update kind (the table below)
      const update = m.method === 'session/update' ? expect.any(String) : undefined;
      expect(shown, m.method).toContainEqual({ dir: m.dir, kind: m.kind, method: m.method, update });
    }
    for (const u of UPDATES.filter((x) => x.versions.includes(v)))
      expect(shown, u.update).toContainEqual({
        dir: A2E,
        kind: 'notification',
        method: 'session/update',
        update: u.update,
      });
    // and nothing else: every labelled row is one of the table's (answers carry no label)
    const named = new Set([...METHODS.map((m) => m.method), ...UPDATES.map((u) => u.update)]);
    const unnamed = shown.filter((r) => r.method !== '' && !named.has(r.update ?? r.method));
    expect(unnamed).toEqual([]);
  });
});

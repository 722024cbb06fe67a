// Issue 23 item 4 on a real artifact: the npm package `@zed-industries/claude-code-acp` (a v1 agent
// on @agentclientprotocol/sdk 0.14, driving the real Claude Code CLI of @anthropic-ai/claude-agent-sdk)
// behind the real `acp-kit proxy --bridge 2 --record`, with acp-kit's client speaking v2 in front.
// No network: the CLI's model is test/support/fake-anthropic.ts on loopback, which scripts each
// turn's tool calls (reads of a real file in the session folder, one without an offset and one with
// `offset: 2`; or a write), then a text answer quoting what the tools returned.
//
// claude-code-acp reports a read's location as `line: offset ?? 0` (its tools.js), valid v1 and
// invalid v2 (`line >= 1`). The read and resume cases can fail: they check in the capture that the
// agent really sent `line: 0` on its v1 leg (so the v2 leg is only valid because the bridge leaves
// it out, docs/bridge.md "Where the two schemas differ"), and validate every message the v2 editor
// received against the official v2 schema (with locationFromV1 made a no-op both fail there:
// "locations/0/line must be >= 1" on the tool_call_update). The permission and cancel cases run the
// agent's session/request_permission through the bridge.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, realpathSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection, type ClientSession } from '../../client/src/index.js';
import { approveAll, type PermissionPolicy } from '../../client/src/services/permission-policy.js';
import type { PermissionRequest } from '../../protocol/src/model/session.js';
import { startFakeAnthropic, type FakeAnthropic, type ScriptedToolUse } from '../../../test/support/fake-anthropic.js';
import { createSchemaTap, type SchemaTap } from '../../../test/support/schema-tap.js';
import { tempDir } from '../../../test/support/temp.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const PACKAGE = '@zed-industries/claude-code-acp';

/** The agent's bin; a missing devDependency fails the test (never a silent skip). */
function agentBin(): string {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
  } catch {
    throw new Error(`${PACKAGE} is not installed: it is a devDependency of acp-kit for this test, run npm ci`);
  }
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin['claude-code-acp'];
  if (!bin) throw new Error(`${PACKAGE} has no claude-code-acp bin`);
  return join(manifest, '..', bin);
}

/**
 * The agent's environment: only what it needs, so nothing of the machine's own Claude or Anthropic
 * set-up (keys, config dirs, base URLs) leaks in and nothing leaves loopback.
 */
function agentEnv(home: string, fake: FakeAnthropic): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    HOME: home,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'dummy-key-for-loopback',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    NO_COLOR: '1',
  };
}

interface Frame {
  type?: string;
  side?: string;
  dir?: string;
  raw?: string;
}

/** The JSON messages of one leg of a bridge capture, in order, with who sent each. */
function legMessages(capture: string, side: 'editor' | 'agent'): Array<{ fromAgent: boolean; message: unknown }> {
  const frames = readFileSync(capture, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Frame);
  return frames
    .filter((f) => f.type === undefined && f.side === side && f.raw !== undefined)
    .map((f) => ({ fromAgent: f.dir === 'agent->editor', message: JSON.parse(f.raw!) as unknown }));
}

type Located = { toolCallId?: string; locations?: Array<{ path: string; line?: number | null }> };

/** Every tool-call location in the session updates of `messages`, with its tool call id. */
function locations(messages: unknown[]): Array<{ toolCallId?: string; path: string; line?: number | null }> {
  const out: Array<{ toolCallId?: string; path: string; line?: number | null }> = [];
  for (const m of messages as Array<{ method?: string; params?: { update?: Located } }>) {
    const u = m.method === 'session/update' ? m.params?.update : undefined;
    for (const loc of u?.locations ?? []) out.push({ toolCallId: u?.toolCallId, ...loc });
  }
  return out;
}

type Wire = {
  method?: string;
  id?: unknown;
  params?: { update?: { sessionUpdate?: string; toolCallId?: string; status?: string; state?: string } };
  result?: unknown;
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Run {
  conn: ClientConnection;
  cwd: string;
  /** The agent's HOME (Claude Code keeps its session transcripts there). */
  home: string;
  capture: string;
  fake: FakeAnthropic;
  editorTap: SchemaTap;
  /** Every message the v2 editor received, in order. */
  got: Wire[];
  /** What to show when an assertion fails: the fake endpoint's requests and the bridge's stderr. */
  context(): string;
}

/**
 * A session folder and HOME (new ones unless `reuse`d), the fake model scripting `toolUses` (each
 * may name files in the folder), and
 * the real `acp-kit proxy --bridge 2 --record` in front of the real agent, with acp-kit's client
 * connected over its stdio in v2, every message it receives through a v2 schema tap.
 */
async function startBehindBridge(
  toolUses: (cwd: string) => ScriptedToolUse[],
  permissionPolicy: PermissionPolicy,
  reuse: { cwd: string; home: string } = {
    cwd: realpathSync(tempDir('acp-real-v1-cwd-')),
    home: tempDir('acp-real-v1-home-'),
  },
): Promise<Run> {
  const bin = agentBin();
  const { cwd, home } = reuse;
  const capture = join(tempDir('acp-real-v1-cap-'), 'bridge.ndjson');
  const fake = await startFakeAnthropic(toolUses(cwd));
  cleanups.push(() => fake.close());
  const editorTap = createSchemaTap(2);
  const got: Wire[] = [];
  let stderr = '';
  const conn = await connect({
    command: process.execPath,
    args: [BIN, 'proxy', '--bridge', '2', '--record', capture, '--', process.execPath, bin],
    cwd,
    env: agentEnv(home, fake),
    protocol: 2,
    permissionPolicy,
    onStderr: (t) => (stderr += t),
    tap: {
      sent: (m: object) => editorTap.clientSide.sent(m),
      received: (m: unknown) => (got.push(m as Wire), editorTap.clientSide.received(m)),
    },
    initializeTimeoutMs: 30_000,
  });
  cleanups.push(() => conn.close());
  const context = () =>
    `fake endpoint requests: ${JSON.stringify(fake.requests.map((r) => `${r.method} ${r.path}`))}\nstderr tail: ${stderr.slice(-2000)}`;
  return { conn, cwd, home, capture, fake, editorTap, got, context };
}

/** The agent leg of the capture, checked against the official v1 schema (the agent is valid v1). */
function validAgentLeg(capture: string): Array<{ fromAgent: boolean; message: Wire }> {
  const leg = legMessages(capture, 'agent');
  const v1Tap = createSchemaTap(1);
  for (const f of leg) (f.fromAgent ? v1Tap.fromAgent : v1Tap.fromClient)(f.message);
  v1Tap.assertAllValid();
  return leg as Array<{ fromAgent: boolean; message: Wire }>;
}

/**
 * Resolves once Claude Code's transcript of `sessionId` (what claude-code-acp's session/load
 * replays: `~/.claude/projects/<cwd with every non-alphanumeric as ->/<id>.jsonl`, its
 * sessionFilePath) contains `text`. The CLI appends the turn's last message there after the ACP
 * prompt has already answered `end_turn`, so closing the agent at once can lose it (seen: 2 runs
 * in 5). Event-driven (fs.watch on the folder), bounded by `timeoutMs`.
 */
function transcriptHas(home: string, cwd: string, sessionId: string, text: string, timeoutMs = 20_000): Promise<void> {
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  const file = join(dir, `${sessionId}.jsonl`);
  mkdirSync(dir, { recursive: true });
  return new Promise((resolve, reject) => {
    const has = () => existsSync(file) && readFileSync(file, 'utf8').includes(text);
    const done = (error?: Error) => {
      watcher.close();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const watcher = watch(dir, () => {
      if (has()) done();
    });
    const timer = setTimeout(
      () => done(new Error(`${file} did not get ${JSON.stringify(text)} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    if (has()) done();
  });
}

const agentAnswer = (s: { state: { messageList: Array<{ role: string; text: string }> } }) =>
  s.state.messageList
    .filter((m) => m.role === 'agent')
    .map((m) => m.text)
    .join('');

// mcp__acp__* when the agent was offered fs (the bridge offers it and serves the calls), else built-in
const READ = ['mcp__acp__Read', 'Read'];
const WRITE = ['mcp__acp__Write', 'Write'];

describe('proxy --bridge 2 in front of the real @zed-industries/claude-code-acp (v1)', () => {
  it('a turn that reads a file: end_turn, the reads as tool calls, every editor message v2-valid although the agent sent line 0', async () => {
    const text = 'alpha line\nbravo line\ncharlie line\ndelta line\n';
    const run = await startBehindBridge((cwd) => {
      writeFileSync(join(cwd, 'notes.txt'), text);
      const file_path = join(cwd, 'notes.txt');
      return [
        { names: READ, input: { file_path } },
        { names: READ, input: { file_path, offset: 2, limit: 1 } },
      ];
    }, approveAll());
    const file = join(run.cwd, 'notes.txt');
    expect(run.conn.protocolVersion).toBe(2);
    const session = await run.conn.newSession({ cwd: run.cwd });
    const result = await session.prompt('Read notes.txt and tell me what it says.');
    expect(result.stopReason, run.context()).toBe('end_turn');
    expect(run.fake.usedTools, run.context()).toEqual(['mcp__acp__Read', 'mcp__acp__Read']);

    // What the real agent sent on its v1 leg (valid v1): the read without an offset located at
    // `line: 0`, the other at `line: 2`; both reads were served by the bridge from the session folder.
    const agentLeg = validAgentLeg(run.capture);
    const agentLocs = locations(agentLeg.filter((f) => f.fromAgent).map((f) => f.message));
    const zero = agentLocs.find((l) => l.path === file && l.line === 0);
    const two = agentLocs.find((l) => l.path === file && l.line === 2);
    expect(zero, `the agent sent no line-0 location: ${JSON.stringify(agentLocs)}`).toBeDefined();
    expect(two).toBeDefined();
    expect(agentLeg.filter((f) => f.message.method === 'fs/read_text_file').length).toBe(2);

    // What the v2 editor got: every message valid v2; the line-0 read's location without a line,
    // the other's line kept; both reads completed, their results quoted in the answer.
    run.editorTap.assertAllValid();
    expect(run.editorTap.checked).toBeGreaterThan(10);
    const editorLocs = locations(run.got);
    expect(editorLocs.filter((l) => l.line === 0)).toEqual([]);
    expect(editorLocs).toContainEqual({ toolCallId: zero!.toolCallId, path: file });
    expect(editorLocs).toContainEqual({ toolCallId: two!.toolCallId, path: file, line: 2 });
    const updates = run.got.filter((m) => m.method === 'session/update').map((m) => m.params!.update!);
    const completed = updates
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed')
      .map((u) => u.toolCallId);
    expect(completed.sort()).toEqual([zero!.toolCallId, two!.toolCallId].sort());
    const answer = agentAnswer(session);
    expect(answer).toContain(`Result ${zero!.toolCallId}: ${text}`);
    expect(answer).toContain(`Result ${two!.toolCallId}: bravo line\n`);
    expect(answer).not.toContain(`Result ${two!.toolCallId}: bravo line\ncharlie`);
  }, 90_000);

  it('a write the agent asks permission for: the v2 editor is asked (requires_action), its answer reaches the agent, the bridge writes the file', async () => {
    const asked: PermissionRequest[] = [];
    const approve = approveAll();
    const run = await startBehindBridge(
      (cwd) => [{ names: WRITE, input: { file_path: join(cwd, 'out.txt'), content: 'written through the bridge\n' } }],
      (request, ctx) => (asked.push(request), approve(request, ctx)),
    );
    const session = await run.conn.newSession({ cwd: run.cwd });
    const states: string[] = [];
    session.onUpdate((u) => {
      if (u.sessionUpdate === 'state_update') states.push((u as { state: string }).state);
    });
    const result = await session.prompt('Write out.txt.');
    expect(result.stopReason, run.context()).toBe('end_turn');
    expect(run.fake.usedTools).toEqual(['mcp__acp__Write']);
    expect(readFileSync(join(run.cwd, 'out.txt'), 'utf8')).toBe('written through the bridge\n');

    // the agent asked once (v1), the editor was asked in v2 while the turn showed requires_action,
    // and the agent got the option the editor's policy picked (allow_once = the agent's "allow")
    expect(asked.length).toBe(1);
    expect(run.got.filter((m) => m.method === 'session/request_permission').length).toBe(1);
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
    const agentLeg = validAgentLeg(run.capture);
    const permission = agentLeg.find((f) => f.fromAgent && f.message.method === 'session/request_permission')!.message;
    const answer = agentLeg.find(
      (f) => !f.fromAgent && f.message.id === permission.id && 'result' in f.message,
    )!.message;
    expect(answer.result).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(agentLeg.filter((f) => f.fromAgent && f.message.method === 'fs/write_text_file').length).toBe(1);
    run.editorTap.assertAllValid();
    // the tool's result reached the model: the fake quotes it by tool_use id in the final answer
    const toolCallId = (permission.params as { toolCall?: { toolCallId?: string } }).toolCall?.toolCallId;
    expect(toolCallId).toMatch(/^toolu_fake_/);
    expect(agentAnswer(session)).toContain(`Result ${toolCallId}: `);
  }, 90_000);
  it('cancel while the agent waits for permission: the agent gets `cancelled` from the bridge, the turn ends cancelled, nothing is written', async () => {
    let session: ClientSession | undefined;
    const asked: PermissionRequest[] = [];
    // The editor does not allow: it cancels the turn while asked, and answers the request `cancelled`
    // (cancel() withdraws the session's pending permission requests, ACP-V1-CANCEL-03).
    const policy: PermissionPolicy = async (request) => {
      asked.push(request);
      session!.cancel();
      return { outcome: 'cancelled' };
    };
    const run = await startBehindBridge(
      (cwd) => [{ names: WRITE, input: { file_path: join(cwd, 'never.txt'), content: 'must not be written\n' } }],
      policy,
    );
    session = await run.conn.newSession({ cwd: run.cwd });
    const states: string[] = [];
    session.onUpdate((u) => {
      if (u.sessionUpdate === 'state_update') states.push((u as { state: string }).state);
    });
    const result = await session.prompt('Write never.txt.');
    expect(result.stopReason, run.context()).toBe('cancelled');
    expect(asked.length).toBe(1);
    // (the bridge reports `running` again once the request is answered, while the agent winds the
    // turn down: ACP-V2-LIFE-07 wants `running` on resumption or `idle` when work ends, and which
    // one applies here is the bridge's call, so only the ends are pinned)
    expect(states.slice(0, 2)).toEqual(['running', 'requires_action']);
    expect(states.at(-1)).toBe('idle');
    expect(existsSync(join(run.cwd, 'never.txt'))).toBe(false);

    // agent leg: session/cancel went to the agent, the bridge answered its permission request
    // `cancelled` (the v1 client's duty, ACP-V1-CANCEL-03), the agent ended the prompt `cancelled`
    const agentLeg = validAgentLeg(run.capture);
    const toAgent = agentLeg.filter((f) => !f.fromAgent).map((f) => f.message);
    expect(toAgent.filter((m) => m.method === 'session/cancel').length).toBe(1);
    const permission = agentLeg.find((f) => f.fromAgent && f.message.method === 'session/request_permission')!.message;
    expect(toAgent.find((m) => m.id === permission.id && 'result' in m)?.result).toEqual({
      outcome: { outcome: 'cancelled' },
    });
    expect(agentLeg.some((f) => f.fromAgent && f.message.method === 'fs/write_text_file')).toBe(false);
    const prompt = toAgent.find((m) => m.method === 'session/prompt')!;
    expect(agentLeg.find((f) => f.fromAgent && f.message.id === prompt.id)?.message.result).toEqual({
      stopReason: 'cancelled',
    });
    run.editorTap.assertAllValid();
  }, 90_000);
  it("session/resume with replay of a finished turn (v1 session/load from Claude Code's transcript): the replayed read is v2-valid too", async () => {
    const first = await startBehindBridge((cwd) => {
      writeFileSync(join(cwd, 'notes.txt'), 'alpha line\n');
      return [{ names: READ, input: { file_path: join(cwd, 'notes.txt') } }];
    }, approveAll());
    const file = join(first.cwd, 'notes.txt');
    const s1 = await first.conn.newSession({ cwd: first.cwd });
    expect((await s1.prompt('Read notes.txt.')).stopReason, first.context()).toBe('end_turn');
    await transcriptHas(first.home, first.cwd, s1.sessionId, 'Done. Result');
    await first.conn.close();

    // a new bridge and agent process on the same HOME, as an editor reopening the session
    const second = await startBehindBridge(() => [], approveAll(), { cwd: first.cwd, home: first.home });
    const s2 = await second.conn.resumeSession(s1.sessionId, { cwd: first.cwd, replay: true });
    const agentLeg = validAgentLeg(second.capture);
    expect(agentLeg.filter((f) => !f.fromAgent && f.message.method === 'session/load').length).toBe(1);
    // the agent replays the read as it first reported it: `line: 0`, valid v1 only
    const replayedLocs = locations(agentLeg.filter((f) => f.fromAgent).map((f) => f.message));
    expect(replayedLocs, second.context()).toContainEqual(expect.objectContaining({ path: file, line: 0 }));
    second.editorTap.assertAllValid();
    const editorLocs = locations(second.got);
    expect(editorLocs.filter((l) => l.line === 0)).toEqual([]);
    expect(editorLocs).toContainEqual(expect.objectContaining({ path: file }));
    expect(s2.state.messageList.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['Read notes.txt.']);
    expect(agentAnswer(s2)).toContain('alpha line');
    expect(s2.state.foreground.state).toBe('idle');
  }, 120_000);
  // found by the case above's capture: claude-code-acp answers session/new with v1 `modes` and no
  // config options, and the v2 codec drops `modes`: a v2 editor had no way to see or switch them
  it('the agent\'s v1 modes reach the v2 editor as a `category: "mode"` option, and setting it is v1 session/set_mode', async () => {
    const run = await startBehindBridge(() => [], approveAll());
    const session = await run.conn.newSession({ cwd: run.cwd });
    const agentLeg = validAgentLeg(run.capture);
    const newAnswer = agentLeg.find(
      (f) => f.fromAgent && (f.message.result as { modes?: unknown } | undefined)?.modes !== undefined,
    );
    const modes = (
      newAnswer?.message.result as
        { modes: { currentModeId: string; availableModes: Array<{ id: string }> } } | undefined
    )?.modes;
    expect(modes?.availableModes.length, run.context()).toBeGreaterThan(1);
    const option = session.state.configOptions.find((o) => o.category === 'mode');
    expect(option?.type).toBe('select');
    if (option?.type !== 'select' || !modes) throw new Error('no mode option');
    expect(option.currentValue).toBe(modes.currentModeId);
    expect(option.options.map((o) => ('value' in o ? o.value : o.groupId))).toEqual(
      modes.availableModes.map((m) => m.id),
    );
    const other = modes.availableModes.map((m) => m.id).find((id) => id !== modes.currentModeId);
    if (!other) throw new Error('one mode only');
    const after = await session.setConfigOption(option.configId, other);
    expect(after.find((o) => o.configId === option.configId)).toMatchObject({ currentValue: other });
    const setMode = validAgentLeg(run.capture).filter((f) => !f.fromAgent && f.message.method === 'session/set_mode');
    expect(setMode.map((f) => (f.message.params as { modeId?: string } | undefined)?.modeId)).toEqual([other]);
    run.editorTap.assertAllValid();
  }, 90_000);
});

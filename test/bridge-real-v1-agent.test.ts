// Issue 23 item 4 on a real artifact: the npm package `@zed-industries/claude-code-acp` (a v1 agent
// on @agentclientprotocol/sdk 0.14, driving the real Claude Code CLI of @anthropic-ai/claude-agent-sdk)
// behind the real `acp-kit proxy --bridge 2 --record`, with acp-kit's client speaking v2 in front.
// No network: the CLI's model is test/support/fake-anthropic.ts on loopback, which scripts one turn
// of two reads of a real file in the session folder (one without an offset, one with `offset: 2`),
// then a text answer quoting what the reads returned.
//
// claude-code-acp reports a read's location as `line: offset ?? 0` (its tools.js), valid v1 and
// invalid v2 (`line >= 1`). The test can fail: it checks in the capture that the agent really sent
// `line: 0` on its v1 leg (so the v2 leg is only valid because the bridge leaves it out, docs/bridge.md
// "Where the two schemas differ"), and every message the v2 editor received is validated against
// the official v2 schema (before the fix the tool_call carried `line: 0` to the editor).
import { createRequire } from 'node:module';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../src/client/index.js';
import { approveAll } from '../src/client/services/permission-policy.js';
import { startFakeAnthropic, type FakeAnthropic } from './support/fake-anthropic.js';
import { createSchemaTap } from './support/schema-tap.js';
import { tempDir } from './support/temp.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
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
  const frames = readFileSync(capture, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Frame);
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

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('proxy --bridge 2 in front of the real @zed-industries/claude-code-acp (v1)', () => {
  it('a turn that reads a file: end_turn, the read as a tool call, every editor message v2-valid although the agent sent line 0', async () => {
    const bin = agentBin();
    const cwd = realpathSync(tempDir('acp-real-v1-cwd-'));
    const home = tempDir('acp-real-v1-home-');
    const capture = join(tempDir('acp-real-v1-cap-'), 'bridge.ndjson');
    const file = join(cwd, 'notes.txt');
    writeFileSync(file, 'alpha line\nbravo line\ncharlie line\ndelta line\n');
    // mcp__acp__Read when the agent was offered fs (the bridge offers it and serves the reads), else Read
    const names = ['mcp__acp__Read', 'Read'];
    const fake = await startFakeAnthropic([
      { names, input: { file_path: file } },
      { names, input: { file_path: file, offset: 2, limit: 1 } },
    ]);
    cleanups.push(() => fake.close());

    const editorTap = createSchemaTap(2);
    const got: unknown[] = [];
    let stderr = '';
    const conn: ClientConnection = await connect({
      command: process.execPath,
      args: [BIN, 'proxy', '--bridge', '2', '--record', capture, '--', process.execPath, bin],
      cwd,
      env: agentEnv(home, fake),
      protocol: 2,
      permissionPolicy: approveAll(),
      onStderr: (t) => (stderr += t),
      tap: { sent: (m: object) => editorTap.clientSide.sent(m), received: (m: unknown) => (got.push(m), editorTap.clientSide.received(m)) },
      initializeTimeoutMs: 30_000,
    });
    cleanups.push(() => conn.close());
    expect(conn.protocolVersion).toBe(2);
    const session = await conn.newSession({ cwd });
    const result = await session.prompt('Read notes.txt and tell me what it says.');
    const context = `fake endpoint requests: ${JSON.stringify(fake.requests.map((r) => `${r.method} ${r.path}`))}\nstderr tail: ${stderr.slice(-2000)}`;
    expect(result.stopReason, context).toBe('end_turn');
    expect(fake.usedTools.length, context).toBe(2);

    // What the real agent sent on its v1 leg (valid v1): the read without an offset located at
    // `line: 0`, the other at `line: 2`; both reads were served by the bridge (it offers the v1
    // agent fs) from the session folder.
    const agentLeg = legMessages(capture, 'agent');
    const v1Tap = createSchemaTap(1);
    for (const f of agentLeg) (f.fromAgent ? v1Tap.fromAgent : v1Tap.fromClient)(f.message);
    v1Tap.assertAllValid();
    const agentLocs = locations(agentLeg.filter((f) => f.fromAgent).map((f) => f.message));
    const zero = agentLocs.find((l) => l.path === file && l.line === 0);
    const two = agentLocs.find((l) => l.path === file && l.line === 2);
    expect(zero, `the agent sent no line-0 location: ${JSON.stringify(agentLocs)}`).toBeDefined();
    expect(two).toBeDefined();
    const reads = agentLeg.filter((f) => (f.message as { method?: string }).method === 'fs/read_text_file');
    expect(reads.length).toBe(2);

    // What the v2 editor got: every message valid v2; the line-0 read's location without a line,
    // the other's line kept; both reads completed, their results quoted in the answer.
    editorTap.assertAllValid();
    expect(editorTap.checked).toBeGreaterThan(10);
    const editorLocs = locations(got);
    expect(editorLocs.filter((l) => l.line === 0)).toEqual([]);
    expect(editorLocs).toContainEqual({ toolCallId: zero!.toolCallId, path: file });
    expect(editorLocs).toContainEqual({ toolCallId: two!.toolCallId, path: file, line: 2 });
    const updates = (got as Array<{ method?: string; params?: { update?: { sessionUpdate?: string; toolCallId?: string; status?: string } } }>)
      .filter((m) => m.method === 'session/update')
      .map((m) => m.params!.update!);
    const completed = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed').map((u) => u.toolCallId);
    expect(completed.sort()).toEqual([zero!.toolCallId, two!.toolCallId].sort());
    const answer = session.state.messageList.filter((m) => m.role === 'agent').map((m) => m.text).join('');
    expect(answer).toContain(`Result ${zero!.toolCallId}: alpha line\nbravo line\ncharlie line\ndelta line`);
    expect(answer).toContain(`Result ${two!.toolCallId}: bravo line\n`);
    expect(answer).not.toContain(`Result ${two!.toolCallId}: bravo line\ncharlie`);
  }, 90_000);
});

// Issue 26 item 7: the Claude agent people run today, the npm package
// `@agentclientprotocol/claude-agent-acp` 0.101.0 (on @agentclientprotocol/sdk 2.4.0, serving ACP v1
// and v2 from one binary; its Claude Code CLI is the native binary of the platform package
// @anthropic-ai/claude-agent-sdk-<os>-<arch>), driven offline through acp-kit's tools: `acp-kit run`,
// `acp-kit proxy --bridge` both ways and `acp-kit check agent`, on v1 and v2. The model is
// test/support/fake-anthropic.ts on loopback: a prompt's first request gets a tool_use of Claude
// Code's Read on a real file in the session folder, the request carrying its result gets a text
// answer quoting it (`Result <tool_use_id>: <text>`), so the answer proves the tool really ran.
//
// The package says `engines: node >= 22`; it runs on node 20 (the machine's and CI's 20.20) as is:
// npm only warns (EBADENGINE), and nothing it uses at run time is missing there.
import { createRequire } from 'node:module';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../packages/client/src/index.js';
import { approveAll } from '../packages/client/src/services/permission-policy.js';
import { ndjson } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';
import {
  startFakeAnthropic,
  type FakeAnthropic,
  type LoggedRequest,
  type ScriptedToolUse,
} from './support/fake-anthropic.js';
import { processesInGroups, processesWithEnv, waitUntil } from './support/process.js';
import { createSchemaTap } from './support/schema-tap.js';
import { tempDir } from './support/temp.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const PACKAGE = '@agentclientprotocol/claude-agent-acp';
const VERSION = '0.101.0';
const cli = useCli();

/** The agent's bin; a missing devDependency fails the test (never a silent skip). */
function agentBin(): string {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
  } catch {
    throw new Error(`${PACKAGE} is not installed: it is a devDependency of acp-kit for this test, run npm ci`);
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin: Record<string, string> };
  if (pkg.version !== VERSION) throw new Error(`${PACKAGE} is ${pkg.version}, this test is about ${VERSION}`);
  const bin = pkg.bin['claude-agent-acp'];
  if (!bin) throw new Error(`${PACKAGE} has no claude-agent-acp bin`);
  return join(manifest, '..', bin);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TEXT = 'alpha line\nbravo line\n';

interface Setup {
  cwd: string;
  file: string;
  fake: FakeAnthropic;
  /** Only what the agent needs: nothing of the machine's own Claude set-up leaks in, nothing leaves loopback. */
  env: NodeJS.ProcessEnv;
  context(stderr?: string): string;
}

/** One line per request for a failing test's message: how many tools it offered, its last message. */
function describeRequest(r: LoggedRequest): string {
  const body = (r.body ?? {}) as { tools?: unknown[]; messages?: unknown[] };
  return `${r.method} ${r.path} tools=${body.tools?.length ?? 0} last=${JSON.stringify(body.messages?.at(-1) ?? null).slice(0, 300)}`;
}

/**
 * Waits until no process uses `home` and the process groups they were in are empty. acp-kit ends
 * an agent's process group when it closes it, but a Claude Code process can outlive that as an
 * orphan (seen: `claude auth status --json`, ppid 1, in the group of a checker's agent, still
 * writing into HOME ~1 s after the test): HOME is removed after the file, and must not be
 * written into afterwards.
 */
async function agentProcessesGone(home: string): Promise<void> {
  const groups = new Set(processesWithEnv('HOME', home).map((p) => p.pgid));
  const left = () => [...processesWithEnv('HOME', home), ...processesInGroups(groups)];
  await waitUntil(() => left().length === 0, 30_000, `the agent processes using HOME ${home} exited`).catch(
    (e: Error) =>
      Promise.reject(
        new Error(
          `${e.message}: ${left()
            .map((p) => `${p.pid} ${p.command}`)
            .join('; ')}`,
        ),
      ),
  );
}

/** A session folder with notes.txt, a fresh HOME, and the fake model scripting `toolUses` (default: Read notes.txt). */
async function setup(toolUses?: (file: string) => ScriptedToolUse[]): Promise<Setup> {
  const cwd = realpathSync(tempDir('acp-claude-acp-cwd-'));
  const file = join(cwd, 'notes.txt');
  writeFileSync(file, TEXT);
  const fake = await startFakeAnthropic(toolUses ? toolUses(file) : [{ names: ['Read'], input: { file_path: file } }]);
  cleanups.push(() => fake.close());
  const home = tempDir('acp-claude-acp-home-');
  cleanups.push(() => agentProcessesGone(home));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    // Claude Code leaves sockets and scratch folders in TMPDIR: one removed after the file
    TMPDIR: tempDir('acp-claude-acp-tmp-'),
    HOME: home,
    ACP_KIT_DATA_DIR: tempDir('acp-claude-acp-data-'),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'dummy-key-for-loopback',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    NO_COLOR: '1',
  };
  const context = (stderr = '') =>
    `fake endpoint requests:\n${fake.requests.map(describeRequest).join('\n')}\nstderr tail: ${stderr.slice(-2000)}`;
  return { cwd, file, fake, env, context };
}

type Update = {
  sessionUpdate?: string;
  toolCallId?: string;
  kind?: string;
  status?: string;
  state?: string;
  stopReason?: string;
  locations?: Array<{ path: string }>;
  content?: unknown;
};

/** The tool call ids of the updates announcing a read of `file`, and those reporting it completed. */
function reads(updates: Update[], file: string): { announced: string[]; completed: string[] } {
  const calls = updates.filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
  const announced = calls.filter((u) => u.kind === 'read').map((u) => String(u.toolCallId));
  const located = calls.filter((u) => u.locations?.some((l) => l.path === file)).map((u) => String(u.toolCallId));
  const completed = calls
    .filter((u) => u.status === 'completed' && JSON.stringify(u.content).includes('alpha line'))
    .map((u) => String(u.toolCallId));
  return { announced: [...new Set(announced)].filter((id) => located.includes(id)), completed };
}

/** The text of the agent's message chunks, in order. */
function answerText(updates: Update[]): string {
  return updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.content as { text?: string } | undefined)?.text ?? '')
    .join('');
}

interface Frame {
  type?: string;
  side?: string;
  dir?: string;
  raw?: string;
}
type Wire = { method?: string; id?: unknown; params?: { update?: Update }; result?: { protocolVersion?: number } };

/** The JSON messages of one leg of a bridge capture (`--record`), in order, with who sent each. */
function legMessages(capture: string, side: 'editor' | 'agent'): Array<{ fromAgent: boolean; message: Wire }> {
  const out: Array<{ fromAgent: boolean; message: Wire }> = [];
  for (const line of readFileSync(capture, 'utf8').split('\n')) {
    const f = line ? (JSON.parse(line) as Frame) : undefined;
    if (f?.type === undefined && f?.side === side && f.raw !== undefined)
      out.push({ fromAgent: f.dir === 'agent->editor', message: JSON.parse(f.raw) as Wire });
  }
  return out;
}

/** The session updates among `messages`. */
const updatesOf = (messages: Wire[]): Update[] =>
  messages.flatMap((m) => (m.method === 'session/update' && m.params?.update ? [m.params.update] : []));

describe(`the real ${PACKAGE} ${VERSION} against a loopback Messages API`, () => {
  it.each([1, 2] as const)(
    'acp-kit run --json --protocol %i: Claude Code reads the file, the answer quotes it, end_turn',
    async (v) => {
      const s = await setup();
      // one command line, split like a shell does: quoted for paths with spaces
      const agent = `"${process.execPath}" "${agentBin()}"`;
      const r = await cli(
        ['run', '--json', '--protocol', String(v), '--approve-all', '--agent', agent, 'Read notes.txt'],
        { cwd: s.cwd, env: s.env },
      );
      expect(r.code, s.context(r.stderr)).toBe(0);
      const events = ndjson(r.stdout);
      expect(events[0]).toMatchObject({
        type: 'connection',
        protocolVersion: v,
        agentInfo: { name: PACKAGE, version: VERSION },
      });
      const updates = events.filter((e) => e.type === 'update').map((e) => e.update as Update);
      // Claude Code's own Read ran (the agent does not route it through the client's fs/read_text_file)
      expect(s.fake.usedTools, s.context(r.stderr)).toEqual(['Read']);
      const { announced, completed } = reads(updates, s.file);
      expect(announced.length, JSON.stringify(updates)).toBe(1);
      expect(completed).toEqual(announced);
      expect(answerText(updates)).toContain(`Result ${announced[0]}: 1\talpha line\n2\tbravo line`);
      if (v === 2)
        expect(updates.filter((u) => u.sessionUpdate === 'state_update').map((u) => [u.state, u.stopReason])).toEqual([
          ['running', undefined],
          ['idle', 'end_turn'],
        ]);
      expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
    },
    60_000,
  );

  // the editor speaks `editor`; the agent is held to the other version (CLAUDE_AGENT_ACP_PROTOCOL),
  // so every message crosses the bridge's translation
  it.each([
    { editor: 2, agent: 1 },
    { editor: 1, agent: 2 },
  ] as const)(
    "proxy --bridge $editor, agent on v$agent: a turn with a read, every frame valid against its leg's schema",
    async ({ editor, agent }) => {
      const s = await setup();
      const capture = join(tempDir('acp-claude-acp-cap-'), 'bridge.ndjson');
      const editorTap = createSchemaTap(editor);
      const got: Wire[] = [];
      let stderr = '';
      const conn = await connect({
        command: process.execPath,
        args: [BIN, 'proxy', '--bridge', String(editor), '--record', capture, '--', process.execPath, agentBin()],
        cwd: s.cwd,
        env: { ...s.env, CLAUDE_AGENT_ACP_PROTOCOL: `v${agent}` },
        protocol: editor,
        permissionPolicy: approveAll(),
        onStderr: (t) => (stderr += t),
        tap: {
          sent: (m: object) => editorTap.clientSide.sent(m),
          received: (m: unknown) => (got.push(m as Wire), editorTap.clientSide.received(m)),
        },
        initializeTimeoutMs: 30_000,
      });
      cleanups.push(() => conn.close());
      expect(conn.protocolVersion).toBe(editor);
      const session = await conn.newSession({ cwd: s.cwd });
      const result = await session.prompt('Read notes.txt');
      expect(result.stopReason, s.context(stderr)).toBe('end_turn');
      expect(s.fake.usedTools, s.context(stderr)).toEqual(['Read']);

      // the agent leg: the agent really spoke `agent`, and every frame of it is valid there
      const leg = legMessages(capture, 'agent');
      const init = leg.find((f) => f.fromAgent && f.message.result?.protocolVersion !== undefined);
      expect(init?.message.result?.protocolVersion, s.context(stderr)).toBe(agent);
      const agentTap = createSchemaTap(agent);
      for (const f of leg) (f.fromAgent ? agentTap.fromAgent : agentTap.fromClient)(f.message);
      agentTap.assertAllValid();
      expect(agentTap.checked).toBeGreaterThan(10);
      // the editor leg: every frame the editor got (and sent) valid in its own version
      editorTap.assertAllValid();
      expect(editorTap.checked).toBeGreaterThan(10);

      // the read and the answer quoting it, on both legs
      for (const updates of [updatesOf(leg.filter((f) => f.fromAgent).map((f) => f.message)), updatesOf(got)]) {
        const { announced, completed } = reads(updates, s.file);
        expect(announced.length, JSON.stringify(updates)).toBe(1);
        expect(completed).toEqual(announced);
        expect(answerText(updates)).toContain(`Result ${announced[0]}: 1\talpha line\n2\tbravo line`);
      }
    },
    60_000,
  );

  // One checker run for both versions (cases share agent processes where they allow it). The fake answers
  // the cancel prompt with Bash `sleep 3`, so the cancel and close cases have a busy turn to cancel
  // (the checker skips them, never passes them, when the turn ends first); the general prompt with
  // a quick Bash `echo` (the tool-call cases need a tool call); the short prompt with text only.
  it('acp-kit check agent --protocol both: CONFORMANT on v1 and v2, the cancel and replay cases exercised', async () => {
    const s = await setup(() => [
      { names: ['Bash'], input: { command: 'sleep 3', description: 'wait' }, when: 'run sleep 3' },
      { names: ['Bash'], input: { command: 'echo checked', description: 'echo' }, when: 'run echo checked' },
    ]);
    const envFlags = Object.entries(s.env).map(([k, v]) => `${k}=${v ?? ''}`);
    const prompts = ['--prompt', 'run echo checked', '--cancel-prompt', 'run sleep 3', '--short-prompt', 'hello'];
    // Claude Code's session/new starts a CLI of several MB of JavaScript: on two cores shared with
    // the suite's other forks it took over the default 10 s (CI, stop 16), which is load, not the agent
    const r = await cli(
      [
        'check',
        'agent',
        '--protocol',
        'both',
        '--json',
        '--timeout',
        '30000',
        ...prompts,
        '--env',
        ...envFlags,
        '--',
        process.execPath,
        agentBin(),
      ],
      { cwd: s.cwd, env: s.env },
    );
    const lines = ndjson(r.stdout);
    const report = lines.find((l) => l.type === 'report') as
      | {
          conformant: boolean;
          requirements: Array<{ id: string; protocol: number; status: string; failures: unknown[] }>;
        }
      | undefined;
    const failed = report?.requirements.filter((q) => q.status === 'fail');
    // unstable tier (never in the verdict): its providers/disable of "main" answers {} but providers/list
    // then shows its environment's routing as current, where the unstable schema says a disabled
    // provider has none; its session/fork passes (unstable/session-fork below)
    // the one SHOULD it misses: the checker's MCP server is connected (ACP-V1-SESS-01 passes below)
    // but its tool is never called, as the fake model scripts no call of it (Claude Code offers MCP
    // tools through its deferred tool search, which the fake does not speak)
    expect(
      failed?.map((q) => `v${q.protocol} ${q.id}`),
      `${JSON.stringify(failed, null, 1)}\n${s.context(r.stderr)}`,
    ).toEqual(['v1 ACP-ALL-SESS-08', 'v1 unstable/providers', 'v2 ACP-ALL-SESS-08', 'v2 unstable/providers']);
    expect(r.code).toBe(0);
    expect(report?.conformant).toBe(true);
    expect(lines.at(-1)).toEqual({ type: 'result', conformant: true, exitCode: 0 });
    const passed = (v: number) =>
      report?.requirements.filter((q) => q.protocol === v && q.status === 'pass').map((q) => q.id) ?? [];
    expect(passed(1)).toEqual(
      expect.arrayContaining([
        'unstable/session-fork',
        'schema/v1',
        'ACP-V1-SESS-01',
        'ACP-V1-CANCEL-05',
        'ACP-V1-CANCEL-07',
        'ACP-V1-LOAD-02',
        'ACP-V1-TOOL-01',
        'ACP-ALL-CLOSE-01',
      ]),
    );
    expect(passed(2)).toEqual(
      expect.arrayContaining([
        'unstable/session-fork',
        'schema/v2',
        'ACP-V2-CANCEL-05',
        'ACP-V2-CANCEL-07',
        'ACP-V2-LIFE-04',
        'ACP-V2-RESUME-03',
        'ACP-V2-TOOL-02',
        'ACP-ALL-CLOSE-01',
      ]),
    );
    // the turns were real: Claude Code ran the scripted `echo` and sent its output back to the model
    const echoed = s.fake.requests.filter((q) =>
      /"type":"tool_result","content":"checked/.test(JSON.stringify(q.body)),
    );
    expect(echoed.length, s.context(r.stderr)).toBeGreaterThan(0);
  }, 240_000);
});

// Issue 27 "Done when": a chain of three components (examples/redact-secrets-component.mjs, `acp-kit record`,
// examples/mcp-tool-component.mjs) run by `acp-kit conduct`, in front of the built-in agent and of the real
// @agentclientprotocol/claude-agent-acp (on the loopback Anthropic mock, test/support/fake-anthropic.ts), driven
// from `acp-kit run`, `acp-kit chat` (tmux) and an editor emulation (the official SDK's v1 and v2 clients over
// pipes), v1 and v2. Each turn calls the injector's MCP tool (the built-in agent natively over mcp/message; Claude
// Code through the conductor's stdio bridge) with a secret in its input: the tool's answer reaches the editor
// redacted, the recorder (between the redactor and the injector) captured the secret, and the conductor's trace
// and the recorder's capture read back with our reader. Real processes over real pipes; loopback only.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { spawn } from 'node:child_process';
import * as acp1 from '@agentclientprotocol/sdk';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agentAdvertisesMcpOverAcp, readCapture, type CaptureFrame } from '../packages/tools/src/proxy/index.js';
import { BIN, cliEnv, ndjson, runCli } from './fixtures/cli-helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from './support/fake-anthropic.js';
import { HAS_TMUX, useTmuxChat } from './support/tmux-chat.js';
import { tempDir } from './support/temp.js';

const NODE = process.execPath;
const REDACT = resolve('examples/redact-secrets-component.mjs');
const INJECTOR = resolve('examples/mcp-tool-component.mjs');
const SECRET = 'sk-abcdefghijk';
const TOOL = 'mcp__notes__session_notes';
/** The demo model's way to call a tool (`mcp <server> <tool> <json>`); Claude Code gets it from the mock. */
const PROMPT = `mcp notes session_notes {"key": "${SECRET}"}`;
const REDACTED = 'notes: 1 prompt(s): mcp notes session_notes {"key": "[REDACTED]"}';
const BUILTIN = [NODE, BIN, 'agent', '--model', 'demo'];
const { startChat } = useTmuxChat();

/** The claude-agent-acp bin (a devDependency; missing fails, never skips). */
function claudeBin(): string {
  const manifest = createRequire(import.meta.url).resolve('@agentclientprotocol/claude-agent-acp/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(manifest, '..', pkg.bin['claude-agent-acp'] ?? 'missing');
}

interface Chain {
  /** `acp-kit conduct ...` as one command line and as argv (after node). */
  line: string;
  argv: string[];
  trace: string;
  capture: string;
}

function chain(agent: readonly string[]): Chain {
  const d = tempDir('conduct3-');
  const trace = join(d, 'chain.jsons');
  const capture = join(d, 'recorder.ndjson');
  const argv = [BIN, 'conduct', '--trace', trace, '--', NODE, REDACT, '--', NODE, BIN, 'record', '--out', capture];
  argv.push('--', NODE, INJECTOR, '--', ...agent);
  return { line: [NODE, ...argv].join(' '), argv, trace, capture };
}

/** The trace and the recorder's capture read back: the tool ran on the agent's side of the chain, the secret never reached the editor. */
async function readBack(c: Chain, v: 1 | 2): Promise<void> {
  const trace = await readCapture(c.trace);
  const hops = (hop: string) => trace.frames.filter((f) => f.hop === hop);
  expect(initializeOf(hops('Client-Proxy(0)'))).toMatchObject({ protocolVersion: v });
  // what the editor was told: MCP over ACP, whatever the agent itself answered
  const told = hops('Client-Proxy(0)').find((f) => f.kind === 'response' && f.raw.includes('"protocolVersion"'));
  expect(agentAdvertisesMcpOverAcp(JSON.parse(told?.raw ?? '{}').result)).toBe(true);
  // the agent asked the injector (Proxy(2)) for its tool: natively or through the conductor's bridge
  const calls = hops('Proxy(2)-Agent').filter((f) => f.method === 'mcp/message' && f.raw.includes('tools/call'));
  expect(calls.length).toBeGreaterThanOrEqual(1);
  expect(hops('Client-Proxy(0)').some((f) => f.method === 'mcp/message')).toBe(false);
  expect(hops('Proxy(1)-Proxy(2)').some((f) => f.kind === 'notification' && f.raw.includes(SECRET))).toBe(true);
  expect(hops('Client-Proxy(0)').some((f) => f.kind === 'notification' && f.raw.includes(SECRET))).toBe(false);
  // the recorder sits after the redactor: its capture has the secret in the updates it passed up
  const recorded = await readCapture(c.capture);
  expect(initializeOf(recorded.frames)).toMatchObject({ protocolVersion: v });
  const updates = recorded.frames.filter((f) => f.method === 'session/update');
  expect(updates.some((f) => f.raw.includes(SECRET))).toBe(true);
}

/** What the chain sent of `updates` (`run` shows the user's own prompt too, as a local `user_message` on v1). */
function fromChain(updates: Array<Record<string, unknown>>): string {
  return JSON.stringify(updates.filter((u) => !String(u.messageId).startsWith('_local_')));
}

/** The params of the first `initialize` request among `frames`. */
function initializeOf(frames: CaptureFrame[]): unknown {
  const f = frames.find((x) => x.kind === 'request' && x.method === 'initialize');
  return f ? (JSON.parse(f.raw) as { params?: unknown }).params : undefined;
}

/** The tool's answer the editor got, among session updates (wire or neutral): the redacted notes. */
function toolAnswers(updates: unknown[]): string[] {
  return updates.map((u) => JSON.stringify(u)).filter((s) => s.includes('notes: 1 prompt(s)'));
}

/** How a describe runs its agent: the command line and the environment of every process. */
interface AgentSetup {
  agent: readonly string[];
  cwd(): string;
  env(): NodeJS.ProcessEnv;
}

/** run, chat (tmux) and the official SDK's v1 and v2 clients, each through the chain of three in front of `setup`'s agent. */
function frontEnds(setup: () => Promise<AgentSetup>, ms: number): void {
  it.each([1, 2] as const)(
    'acp-kit run --protocol %i',
    async (v) => {
      const a = await setup();
      const c = chain(a.agent);
      const r = await runCli(['run', '--json', '--protocol', String(v), '--approve-all', '--agent', c.line, PROMPT], {
        cwd: a.cwd(),
        env: a.env(),
      });
      expect(r.code, r.stderr).toBe(0);
      const events = ndjson(r.stdout);
      expect(events[0]).toMatchObject({
        type: 'connection',
        protocolVersion: v,
        agentCapabilities: { mcp: { acp: true } },
      });
      const updates = events.filter((e) => e.type === 'update').map((e) => e.update);
      expect(updates.find((u) => u.name === TOOL)).toBeDefined();
      expect(toolAnswers(updates).join('\n'), r.stdout).toContain(JSON.stringify(REDACTED).slice(1, -1));
      expect(fromChain(updates)).not.toContain(SECRET);
      await readBack(c, v);
    },
    ms,
  );

  it.each([1, 2] as const)(
    'acp-kit chat --protocol %i (tmux)',
    async (v) => {
      expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
      const a = await setup();
      const c = chain(a.agent);
      const env = Object.fromEntries(Object.entries(a.env()).filter((e): e is [string, string] => e[1] !== undefined));
      const t = startChat(env, ['--protocol', String(v), '--approve-all', '--agent', c.line]);
      await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready', ms / 3);
      t.type(PROMPT);
      await t.waitScreen(/— end_turn/, 'the turn to end', ms / 2);
      // the user's own line shows what they typed; everything the chain sent back is redacted
      expect(t.screen()).toContain('[REDACTED]');
      expect(t.screen().split(SECRET).length - 1).toBe(1);
      t.key('C-d');
      expect(await t.exitCode()).toBe('EXIT=0');
      await readBack(c, v);
    },
    ms,
  );

  it.each([1, 2] as const)(
    'an editor emulation: the official SDK v%i client drives acp-kit conduct over pipes',
    async (v) => {
      const a = await setup();
      const c = chain(a.agent);
      const cwd = a.cwd();
      const updates = v === 1 ? await sdkV1Turn(c, cwd, a.env()) : await sdkV2Turn(c, cwd, a.env());
      expect(toolAnswers(updates).join('\n')).toContain(JSON.stringify(REDACTED).slice(1, -1));
      expect(JSON.stringify(updates)).not.toContain(SECRET);
      await readBack(c, v);
    },
    ms,
  );
}

describe('the chain of three in front of the built-in agent', () => {
  frontEnds(
    async () => ({
      agent: BUILTIN,
      cwd: () => tempDir('conduct3-cwd-'),
      env: () => ({ ...cliEnv(), ACP_KIT_DEMO_DELAY_MS: '0' }),
    }),
    60_000,
  );
});

const children: Array<() => void> = [];
afterEach(() => {
  for (const k of children.splice(0)) k();
});

function startConduct(c: Chain, cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(NODE, c.argv, { cwd, env, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  children.push(() => child.kill('SIGTERM'));
  const output = Writable.toWeb(child.stdin) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>;
  const exited = new Promise((r) => child.once('exit', r));
  // the editor leaves: the conductor stops the chain and exits
  const end = async () => {
    child.stdin.end();
    await exited;
  };
  return { output, input, stderr: () => stderr, end };
}

/** One v1 turn of the official SDK's client through the chain; its session updates. */
async function sdkV1Turn(c: Chain, cwd: string, env: NodeJS.ProcessEnv): Promise<unknown[]> {
  const p = startConduct(c, cwd, env);
  const updates: unknown[] = [];
  const app = acp1
    .client({ name: 'sdk-v1-editor' })
    .onNotification('session/update', ({ params }) => void updates.push(params.update))
    .onRequest('session/request_permission', ({ params }) => {
      const allow = params.options.find((o) => o.kind.startsWith('allow')) ?? params.options[0];
      return { outcome: { outcome: 'selected', optionId: allow?.optionId ?? '' } };
    });
  const conn = app.connect(acp1.ndJsonStream(p.output, p.input));
  const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  expect(init.protocolVersion, p.stderr()).toBe(1);
  const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
  const r = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PROMPT }] });
  expect(r.stopReason, p.stderr()).toBe('end_turn');
  await p.end();
  return updates;
}

/** One v2 turn of the official SDK's client through the chain, until idle; its session updates. */
async function sdkV2Turn(c: Chain, cwd: string, env: NodeJS.ProcessEnv): Promise<unknown[]> {
  const p = startConduct(c, cwd, env);
  const app = acp2.client({ name: 'sdk-v2-editor' }).onRequest('session/request_permission', ({ params }) => {
    const allow = params.options.find((o) => o.kind.startsWith('allow')) ?? params.options[0];
    return { outcome: { outcome: 'selected', optionId: allow?.optionId ?? '' } };
  });
  const conn = app.connect(acp2.ndJsonStream(p.output, p.input));
  const init = await conn.agent.request('initialize', {
    protocolVersion: 2,
    info: { name: 'sdk', version: '2' },
    capabilities: {},
  });
  expect(init.protocolVersion, p.stderr()).toBe(2);
  const session = await conn.agent.buildSession(cwd).start();
  await session.prompt(PROMPT);
  const updates: unknown[] = [];
  for (;;) {
    const m = await session.nextUpdate();
    if (m.kind === 'stop') {
      expect((m.update as { stopReason?: string }).stopReason, p.stderr()).toBe('end_turn');
      break;
    }
    updates.push(m.update);
  }
  await p.end();
  return updates;
}

describe('the chain of three in front of the real claude-agent-acp (loopback Anthropic mock)', () => {
  let fake: FakeAnthropic | undefined;
  afterAll(async () => fake?.close());
  frontEnds(async () => {
    // Claude Code calls the injected tool (offered to it as a stdio server: the conductor's bridge)
    fake ??= await startFakeAnthropic([{ names: [TOOL], input: { key: SECRET } }]);
    const url = fake.url;
    const home = tempDir('conduct3-claude-home-');
    // "default" permission mode: the tool call asks the editor (the "auto" mode's classifier would ask the mock)
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
    const env = {
      PATH: process.env.PATH,
      TMPDIR: tempDir('conduct3-claude-tmp-'),
      HOME: home,
      ACP_KIT_DATA_DIR: tempDir('conduct3-claude-data-'),
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'dummy-key-for-loopback',
      // MCP tools in the model's tool list, not behind Claude Code's tool search
      ENABLE_TOOL_SEARCH: 'false',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      NO_COLOR: '1',
      // chat's tmux window inherits this machine's environment: IS_SANDBOX=yes makes Claude Code start with
      // --dangerously-skip-permissions, which it refuses as root
      IS_SANDBOX: '',
    };
    return { agent: [NODE, claudeBin()], cwd: () => realpathSync(tempDir('conduct3-claude-cwd-')), env: () => env };
  }, 120_000);
});

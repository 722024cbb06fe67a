// `acp-kit proxy --bridge 1|auto` over real processes and pipes: the official SDK's v1 client in
// front of v2 agents (acp-kit's built-in agent with the demo model, the SDK's own v2 agent), every
// message the v1 client receives checked against the official v1 schema; `--bridge auto` with an
// agent of the editor's version forwards unchanged.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp1 from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createSchemaTap, type SchemaTap } from '../../../test/support/schema-tap.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));
const procs: ChildProcess[] = [];
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  removeTempDirs();
});

type Update = { sessionUpdate: string; content?: { type: string; text?: string } };

/** `acp-kit proxy <flags> -- <agent>` with the SDK's v1 client on its stdio; both directions go through a v1 schema tap. */
function bridgeTo(
  flags: string[],
  agent: string[],
  options: { cwd: string; permission?: (params: unknown) => Promise<unknown> | unknown },
) {
  const child = spawn(process.execPath, [BIN, 'proxy', ...flags, '--', ...agent], {
    cwd: options.cwd,
    env: { ...process.env, ACP_KIT_DATA_DIR: join(options.cwd, '.data'), ACP_KIT_DEMO_DELAY_MS: '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  procs.push(child);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  const tap: SchemaTap = createSchemaTap(1);
  const received: unknown[] = [];
  let partial = '';
  child.stdout!.on('data', (b: Buffer) => {
    const lines = (partial + b.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      const m = JSON.parse(l);
      received.push(m);
      tap.fromAgent(m);
    }
  });
  const toAgent = new PassThrough();
  const sent: unknown[] = [];
  let outPartial = '';
  toAgent.on('data', (b: Buffer) => {
    const lines = (outPartial + b.toString('utf8')).split('\n');
    outPartial = lines.pop()!;
    for (const l of lines) {
      const m = JSON.parse(l);
      sent.push(m);
      tap.fromClient(m);
    }
  });
  toAgent.pipe(child.stdin!);
  const updates: Update[] = [];
  const app = acp1
    .client({ name: 'sdk-v1-client' })
    .onNotification('session/update', ({ params }) => void updates.push(params.update as Update))
    .onRequest(
      'session/request_permission',
      async ({ params }) =>
        (options.permission
          ? options.permission(params)
          : {
              outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === 'allow_once')!.optionId },
            }) as never,
    );
  const conn = app.connect(
    acp1.ndJsonStream(
      Writable.toWeb(toAgent) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  closers.push(() => conn.close());
  return { conn, updates, tap, received, sent, exit, child, stderr: () => stderr };
}

const text = (updates: Update[]) =>
  updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.content?.text ?? '')
    .join('');

describe('proxy --bridge 1: the official SDK v1 client, v2 agents', () => {
  it("acp-kit's built-in v2 agent: a turn with a permission answers the v1 prompt end_turn; session/load replays through v2 session/resume", async () => {
    const cwd = tempDir('acp-bridge-v1-');
    writeFileSync(join(cwd, 'README.md'), '# hi\n');
    const first = bridgeTo(['--bridge', '1'], [process.execPath, BIN, 'agent', '--model', 'demo'], { cwd });
    const { conn, updates, tap, stderr } = first;
    const init = await conn.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: 'sdk', version: '1' },
    });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
    const r = await conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'create notes.txt containing hello' }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toContain('hello');
    const kinds = new Set(updates.map((u) => u.sessionUpdate));
    for (const k of ['agent_message_chunk', 'tool_call', 'tool_call_update']) expect(kinds).toContain(k);
    // the v2 echo of the prompt is not shown live to a v1 client (it shows its own prompt)
    expect(kinds).not.toContain('user_message_chunk');
    const live = updates.length;
    // a v1 session/load on a second connection: the full replay arrives before the response
    // the editor closing its side ends the agent and the bridge (exit 0), releasing the session
    conn.close();
    first.child.stdin!.end();
    expect(await first.exit).toBe(0);
    // stderr is another pipe than stdout: all of it is read once the process is gone
    expect(stderr()).toContain('editor speaks ACP v1, agent v2: translating');
    const second = bridgeTo(['--bridge', '1'], [process.execPath, BIN, 'agent', '--model', 'demo'], { cwd });
    await second.conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await second.conn.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = second.updates;
    expect(replayed.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content?.text)).toEqual([
      'create notes.txt containing hello',
    ]);
    expect(text(replayed)).toBe(text(updates.slice(0, live)));
    tap.assertAllValid();
    second.tap.assertAllValid();
  });

  it("the SDK's v2 agent: the prompt answered at idle; cancel while a permission is pending ends cancelled, never an error", async () => {
    const cwd = tempDir('acp-bridge-v1-');
    let release!: () => void;
    const asked = new Promise<void>((r) => (release = r));
    let answer!: (v: unknown) => void;
    const { conn, updates, tap } = bridgeTo(['--bridge', '1'], [process.execPath, fixture('client-sdk-agent-v2.mjs')], {
      cwd,
      permission: () => {
        release();
        return new Promise((r) => (answer = r));
      },
    });
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
    // the v2 agent sent its commands before the session/new response: they still reach the v1 client
    const r1 = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(r1.stopReason).toBe('end_turn');
    expect(text(updates)).toBe('Hello from v2 (hi)');
    expect(updates.map((u) => u.sessionUpdate)).toContain('plan');
    const p = conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission' }] });
    await asked;
    // v1: the client cancels and answers its own pending permission request `cancelled` (ACP-V1-CANCEL-03)
    await conn.agent.notify('session/cancel', { sessionId });
    answer({ outcome: { outcome: 'cancelled' } });
    const r2 = await p;
    expect(r2.stopReason).toBe('cancelled');
    expect(text(updates)).toContain('outcome:{"outcome":"cancelled"}');
    tap.assertAllValid();
  });

  // the agent is a hand-written v1 agent (cli-raw-v1-agent.mjs): what is checked is the proxy's
  // forwarding, not the SDK agent's behaviour (the SDK v2 agent above is the interop case), and the
  // official SDK costs ~0.5 s of CPU to load
  it('--bridge auto with an agent of the same version forwards unchanged: every message, ids included, both ways', async () => {
    const cwd = tempDir('acp-bridge-auto-');
    const got = join(cwd, 'agent-got');
    const sentByAgent = join(cwd, 'agent-sent');
    const { conn, tap, stderr, received, sent } = bridgeTo(
      ['--bridge', 'auto'],
      [
        process.execPath,
        fixture('proxy-tee.mjs'),
        got,
        sentByAgent,
        '--',
        process.execPath,
        fixture('cli-raw-v1-agent.mjs'),
      ],
      { cwd },
    );
    const init = await conn.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
      clientInfo: { name: 'sdk', version: '1' },
    });
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
    const r = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(stderr()).toContain('agent speaks ACP v1: forwarding unchanged');
    const lines = (f: string) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    expect(lines(got)).toEqual(sent);
    expect(received).toEqual(lines(sentByAgent));
    expect(sent.length).toBe(3);
    tap.assertAllValid();
  });
});

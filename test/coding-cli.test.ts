/**
 * `acp-kit agent` as a real process over real pipes (needs `npm run build`): stdout carries only
 * protocol messages, the demo model works offline, OpenAI-compatible config comes from the
 * environment, the process exits 0 when stdin closes, sessions are stored as JSONL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent, type AgentProcess } from '../packages/protocol/src/rpc/child.js';
import { JsonRpcPeer } from '../packages/protocol/src/rpc/peer.js';
import { openai, startFakeLlm, type FakeLlm } from './fixtures/coding-fake-llm.js';
import { tempDir } from './support/temp.js';

const bin = resolve('bin/acp-kit.js');

let procs: AgentProcess[] = [];
let llm: FakeLlm | undefined;
afterEach(async () => {
  for (const p of procs) await p.kill();
  procs = [];
  await llm?.close();
  llm = undefined;
});

function start(args: string[], env: Record<string, string>, cwd: string) {
  let stderr = '';
  const proc = spawnAgent(process.execPath, [bin, 'agent', ...args], {
    cwd,
    env: { ...process.env, ACP_KIT_DEMO_DELAY_MS: '0', ...env },
    onStderr: (t) => (stderr += t),
  });
  procs.push(proc);
  const problems: string[] = [];
  const peer = new JsonRpcPeer(proc.transport, {
    answerParseErrors: false,
    onProblem: (p) => problems.push(p.message),
  });
  const updates: any[] = [];
  peer.onNotification('session/update', (p) => void updates.push((p as any).update));
  peer.onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }));
  return { proc, peer, updates, problems, stderr: () => stderr };
}

describe('acp-kit agent (process)', () => {
  it('demo model over v1: writes with permission, only JSON-RPC on stdout, exits 0 when stdin closes, stores the session', async () => {
    const cwd = tempDir('coding-cli-');
    const data = tempDir('coding-cli-data-');
    const a = start([], { ACP_KIT_DATA_DIR: data }, cwd);
    const init = (await a.peer.request('initialize', { protocolVersion: 1, clientCapabilities: {} })) as any;
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo.name).toBe('acp-kit-agent');
    const { sessionId } = (await a.peer.request('session/new', { cwd, mcpServers: [] })) as any;
    const r = (await a.peer.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'create notes.txt containing hello' }],
    })) as any;
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
    expect(a.updates.some((u) => u.sessionUpdate === 'tool_call' && u.name === 'write_file')).toBe(true);
    // anything non-JSON on stdout would have been reported as a protocol problem
    expect(a.problems).toEqual([]);
    a.proc.transport.close({ reason: 'test done' });
    expect(await a.proc.exited).toEqual({ exitCode: 0, signal: null });
    const files = readdirSync(join(data, 'sessions'));
    expect(files).toContain(`${sessionId}.jsonl`);
    expect(readFileSync(join(data, 'sessions', `${sessionId}.jsonl`), 'utf8')).toContain('notes.txt');
  });

  it('--model openai with OPENAI_BASE_URL / OPENAI_API_KEY from the environment (v2)', async () => {
    llm = await startFakeLlm();
    llm.push({
      steps: [
        openai.role(),
        openai.text('Hello from '),
        openai.text('the fake.'),
        openai.finish('stop'),
        openai.usage(10, 4),
        openai.done(),
      ],
    });
    const cwd = tempDir('coding-cli-');
    const a = start(
      ['--model', 'openai', '--model-name', 'fake-gpt'],
      {
        OPENAI_BASE_URL: `${llm.url}/v1`,
        OPENAI_API_KEY: 'sk-env',
        ACP_KIT_DATA_DIR: tempDir('coding-cli-data-'),
      },
      cwd,
    );
    await a.peer.request('initialize', { protocolVersion: 2, info: { name: 't', version: '0' }, capabilities: {} });
    const { sessionId } = (await a.peer.request('session/new', { cwd })) as any;
    await a.peer.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const deadline = Date.now() + 10_000;
    while (!a.updates.some((u) => u.sessionUpdate === 'state_update' && u.state === 'idle') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const idle = a.updates.find((u) => u.sessionUpdate === 'state_update' && u.state === 'idle');
    expect(idle?.stopReason).toBe('end_turn');
    expect(
      a.updates
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.content.text)
        .join(''),
    ).toBe('Hello from the fake.');
    expect(llm.requests[0].headers.authorization).toBe('Bearer sk-env');
    expect(llm.requests[0].body.model).toBe('fake-gpt');
  });

  it('a bad configuration fails fast with a usage error (exit 2) naming the problem', async () => {
    const child = spawn(process.execPath, [bin, 'agent'], {
      env: { ...process.env, ACP_KIT_MODE: 'yolo' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(2);
    expect(stderr).toMatch(/mode must be ask, auto or read-only \(got "yolo"\)/);
    expect(stdout).toBe('');
  });
});

// Interop: the official SDK's client (v1 and v2 APIs) drives acp-kit's built-in agent
// (`acp-kit agent --model demo`) over real stdio pipes.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp1 from '@agentclientprotocol/sdk';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './support/temp.js';

const bin = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const kill: Array<() => void> = [];
afterEach(() => {
  while (kill.length) kill.pop()!();
});

function startAgent() {
  const cwd = tempDir('acp-interop-');
  writeFileSync(join(cwd, 'README.md'), '# hello\n');
  const child = spawn(process.execPath, [bin, 'agent', '--model', 'demo'], {
    cwd,
    env: { ...process.env, ACP_KIT_DATA_DIR: join(cwd, '.data'), ACP_KIT_DEMO_DELAY_MS: '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  kill.push(() => child.kill('SIGKILL'));
  const stream = {
    output: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  };
  return { cwd, child, stream, stderr: () => stderr };
}

describe('official SDK client -> acp-kit agent', () => {
  it('v1: initialize, session/new, a prompt with a permission, end_turn; the file is written', async () => {
    const { cwd, stream } = startAgent();
    const updates: Array<{ sessionUpdate: string }> = [];
    let asked = 0;
    const app = acp1
      .client({ name: 'sdk-v1-client' })
      .onNotification('session/update', ({ params }) => void updates.push(params.update as { sessionUpdate: string }))
      .onRequest('session/request_permission', ({ params }) => {
        asked++;
        const allow = params.options.find((o) => o.kind === 'allow_once')!;
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      });
    const conn = app.connect(acp1.ndJsonStream(stream.output, stream.input));
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
    expect(asked).toBe(1);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toContain('hello');
    const kinds = new Set(updates.map((u) => u.sessionUpdate));
    for (const k of ['agent_message_chunk', 'tool_call', 'tool_call_update', 'plan']) expect(kinds).toContain(k);
    conn.close();
  });

  it('v2: initialize, session/new, prompt acknowledged with a messageId, updates until idle end_turn', async () => {
    const { cwd, stream } = startAgent();
    const app = acp2.client({ name: 'sdk-v2-client' }).onRequest('session/request_permission', ({ params }) => {
      const allow = params.options.find((o) => o.kind === 'allow_once')!;
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    });
    const conn = app.connect(acp2.ndJsonStream(stream.output, stream.input));
    const init = await conn.agent.request('initialize', {
      protocolVersion: 2,
      info: { name: 'sdk', version: '2' },
      capabilities: {},
    });
    expect(init.protocolVersion).toBe(2);
    const session = await conn.agent.buildSession(cwd).start();
    const ack = await session.prompt('create notes.txt containing hello');
    expect(typeof ack.messageId).toBe('string');
    const seen: string[] = [];
    let stop: string | undefined;
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === 'stop') {
        stop = (m.update as { stopReason?: string }).stopReason;
        break;
      }
      seen.push(m.update.sessionUpdate);
    }
    expect(stop).toBe('end_turn');
    expect(seen).toContain('user_message');
    expect(seen).toContain('tool_call_update');
    expect(seen).toContain('plan_update');
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(true);
    conn.close();
  });
});

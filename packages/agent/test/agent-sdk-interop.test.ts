// Interop: the official SDK's v1 and v2 client apps drive the fixture agent (a real process)
// served by acp-kit's runtime: one agent definition, both protocol versions.
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as v1 from '@agentclientprotocol/sdk';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath, tempDataDir } from '../../../test/support/agent-harness.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function spawnFixture(): { stream: ReturnType<typeof v1.ndJsonStream>; child: ChildProcess } {
  const child = spawn(process.execPath, [fixturePath('agent-scripted.mjs')], {
    env: { ...process.env, ACP_KIT_DATA_DIR: tempDataDir() },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const output = Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>;
  return { stream: v1.ndJsonStream(output, input), child };
}

describe('official SDK clients against the acp-kit runtime', () => {
  it('v1 client: initialize, session/new, prompt with permission, cancel', async () => {
    const { stream } = spawnFixture();
    const app = v1
      .client({ name: 'sdk-v1-client' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }));
    const out = await app.connectWith(stream, async (cx) => {
      const init = await cx.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: 'sdk-v1-client', version: '1' },
      });
      const session = await cx.buildSession('/tmp').start();
      const r1 = await session.prompt('hello');
      const text1 = await session.readText();
      const r2 = await session.prompt('permission');
      const text2 = await session.readText();
      const running = session.prompt('stream 1000 10');
      await new Promise((r) => setTimeout(r, 100));
      await cx.notify('session/cancel', { sessionId: session.sessionId });
      const r3 = await running;
      return { init, r1, text1, r2, text2, r3, modes: session.modes };
    });
    expect(out.init.protocolVersion).toBe(1);
    expect(out.r1.stopReason).toBe('end_turn');
    expect(out.text1).toBe('Hello, world');
    expect(out.text2).toBe('permission: allow');
    expect(out.r3.stopReason).toBe('cancelled');
    expect(out.modes?.currentModeId).toBe('ask');
  });

  it('v2 client: insertion response, idle stop messages, held prompt, tool call cancel', async () => {
    const { stream } = spawnFixture();
    const app = v2
      .client({ name: 'sdk-v2-client' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }));
    const out = await app.connectWith(stream as unknown as Parameters<typeof app.connectWith>[0], async (cx) => {
      const init = await cx.request('initialize', {
        protocolVersion: 2,
        info: { name: 'sdk-v2-client', version: '1' },
        capabilities: {},
      });
      const session = await cx.buildSession('/tmp').start();
      const p1 = await session.prompt('hello');
      const text1 = await session.readTextUntilIdle();
      const p2 = await session.prompt('permission');
      const text2 = await session.readTextUntilIdle();
      // a held prompt: inserted after the running turn
      const a = session.prompt('stream 3 20');
      const b = session.prompt('custom');
      const [ra, rb] = await Promise.all([a, b]);
      const text3 = await session.readTextUntilIdle();
      const text4 = await session.readTextUntilIdle();
      // per-entity cancel through the SDK's own capability tracking
      await session.prompt('toolcancel');
      let toolCallId: string | undefined;
      while (!toolCallId) {
        const m = await session.nextUpdate();
        if (m.kind === 'session_update' && m.update.sessionUpdate === 'tool_call_update')
          toolCallId = m.update.toolCallId;
      }
      expect(session.canCancelToolCall(toolCallId)).toBe(true);
      await session.cancelToolCall(toolCallId);
      await session.readTextUntilIdle();
      expect(session.canCancelToolCall(toolCallId)).toBe(false);
      return { init, p1, text1, p2, text2, ra, rb, text3, text4, config: session.configOptions };
    });
    expect(out.init.protocolVersion).toBe(2);
    expect(out.p1.messageId).toBeTypeOf('string');
    expect(out.text1).toBe('Hello, world');
    expect(out.text2).toBe('permission: allow');
    expect(out.ra.messageId).not.toBe(out.rb.messageId);
    expect(out.text3).toBe('chunk 0;chunk 1;chunk 2;');
    expect(out.text4).toBe('custom stop');
    expect(out.config?.map((o) => o.configId)).toEqual(['mode', 'fast']);
  });
});

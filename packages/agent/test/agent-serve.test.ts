// serveAgent in-process over a pair of in-memory pipes: options and the connection handle.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore, serveAgent, silentLogger, type AgentDefinition } from '../src/index.js';
import { JsonRpcPeer, StreamTransport } from '../../protocol/src/rpc/index.js';
import { createSchemaTap } from '../../../test/support/schema-tap.js';

function pipePair() {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  return { agent: new StreamTransport(toAgent, toClient), client: new StreamTransport(toClient, toAgent) };
}

const hanging: AgentDefinition = {
  info: { name: 'hanging', version: '0' },
  // never returns and ignores its signal
  prompt: () => new Promise(() => undefined),
};

describe('serveAgent', () => {
  it('serves only the configured versions and advertises no persistence with store: null', async () => {
    const pipes = pipePair();
    const tap = createSchemaTap(1);
    const conn = serveAgent(hanging, pipes.agent, {
      supportedVersions: [1],
      store: null,
      logger: silentLogger,
      peer: { tap: tap.agentSide },
    });
    const client = new JsonRpcPeer(pipes.client);
    const init = await client.request<any>('initialize', {
      protocolVersion: 2,
      info: { name: 'c', version: '1' },
      capabilities: {},
    });
    expect(init.protocolVersion).toBe(1);
    expect(conn.protocolVersion).toBe(1);
    expect(init.agentCapabilities.loadSession).toBe(false);
    expect(init.agentCapabilities.sessionCapabilities?.list ?? null).toBeNull();
    expect(init.agentCapabilities.sessionCapabilities?.close).toEqual({});
    const { sessionId } = await client.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    const e = await client.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] }).catch((x) => x);
    expect(e.code).toBe(-32601);
    tap.assertAllValid();
    conn.close();
    expect((await conn.closed).reason).toBe('closed by the agent');
    expect(
      client.isClosed ||
        (await Promise.race([client.closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 500))])),
    ).toBe(true);
  });

  it('store: null keeps no history; v2 baseline list/resume still work, replaying nothing', async () => {
    const pipes = pipePair();
    const talker: AgentDefinition = {
      info: { name: 'talker', version: '0' },
      async prompt(turn) {
        turn.session.send({ sessionUpdate: 'session_info_update', title: 'Talk' });
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId: turn.session.newId('m'),
          content: { type: 'text', text: 'said' },
        });
        return 'end_turn';
      },
    };
    const tap = createSchemaTap(2);
    serveAgent(talker, pipes.agent, { store: null, logger: silentLogger, peer: { tap: tap.agentSide } });
    const client = new JsonRpcPeer(pipes.client);
    const updates: any[] = [];
    let idle!: () => void;
    client.onNotification('session/update', (p: any) => {
      updates.push(p.update);
      if (p.update.state === 'idle' && p.update.stopReason) idle();
    });
    const init = await client.request<any>('initialize', {
      protocolVersion: 2,
      info: { name: 'c', version: '1' },
      capabilities: {},
    });
    expect(init.protocolVersion).toBe(2);
    const cwd = '/tmp/store-null';
    const { sessionId } = await client.request<any>('session/new', { cwd });
    const ended = new Promise<void>((r) => (idle = r));
    await client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    await ended;
    expect(updates.some((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(true);
    await client.request('session/close', { sessionId });
    const listed = await client.request<any>('session/list', { cwd });
    expect(listed.sessions.map((s: any) => [s.sessionId, s.title])).toEqual([[sessionId, 'Talk']]);
    updates.length = 0;
    await client.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    // nothing was kept to replay: only the state snapshot
    expect(updates).toEqual([{ sessionUpdate: 'state_update', state: 'idle' }]);
    const ended2 = new Promise<void>((r) => (idle = r));
    await client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    await ended2;
    expect(updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').length).toBe(1);
    tap.assertAllValid();
  });

  it('tells openSession whether the session was restored, with its stored history', async () => {
    const seen: Array<{ restored: boolean; history: unknown[] }> = [];
    const def: AgentDefinition = {
      info: { name: 'remembering', version: '0' },
      openSession(_s, context) {
        seen.push({ restored: context.restored, history: [...context.history] });
      },
      async prompt(turn) {
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId: 'a1',
          content: { type: 'text', text: 'reply' },
        });
        return 'end_turn';
      },
    };
    const store = new InMemorySessionStore();
    const first = pipePair();
    serveAgent(def, first.agent, { store, logger: silentLogger });
    const c1 = new JsonRpcPeer(first.client);
    await c1.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await c1.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    await c1.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'question' }] });
    c1.close();
    const second = pipePair();
    serveAgent(def, second.agent, { store, logger: silentLogger });
    const c2 = new JsonRpcPeer(second.client);
    await c2.request('initialize', { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} });
    await c2.request('session/resume', { sessionId, cwd: '/tmp' });
    expect(seen[0]).toEqual({ restored: false, history: [] });
    expect(seen[1].restored).toBe(true);
    expect(seen[1].history).toEqual([
      { sessionUpdate: 'user_message', messageId: expect.any(String), content: [{ type: 'text', text: 'question' }] },
      { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'reply' } },
    ]);
    c2.close();
  });

  it('ends a cancelled turn after cancelTimeoutMs even if prompt() never returns', async () => {
    const pipes = pipePair();
    serveAgent(hanging, pipes.agent, { logger: silentLogger, cancelTimeoutMs: 100 });
    const client = new JsonRpcPeer(pipes.client);
    await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await client.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    const p = client.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    // a round trip: the agent has started the turn before the cancel
    await expect(client.request('_probe')).rejects.toMatchObject({ code: -32601 });
    const t0 = Date.now();
    client.notify('session/cancel', { sessionId });
    expect(await p).toEqual({ stopReason: 'cancelled' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('refuses more held prompts than maxHeldPrompts', async () => {
    const pipes = pipePair();
    serveAgent(hanging, pipes.agent, { logger: silentLogger, maxHeldPrompts: 1 });
    const client = new JsonRpcPeer(pipes.client);
    await client.request('initialize', { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} });
    const { sessionId } = await client.request<any>('session/new', { cwd: '/tmp' });
    const prompt = [{ type: 'text', text: 'hi' }];
    expect((await client.request<any>('session/prompt', { sessionId, prompt })).messageId).toBeTypeOf('string');
    const held = client.request('session/prompt', { sessionId, prompt }).catch((x) => x);
    const refused = await client.request('session/prompt', { sessionId, prompt }).catch((x) => x);
    expect(refused.code).toBe(-32600);
    expect(refused.message).toMatch(/limit 1/);
    client.notify('session/cancel', { sessionId });
    expect((await held).code).toBe(-32800);
  });
});

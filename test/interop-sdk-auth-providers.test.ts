// Interop of the unstable auth/status, auth/status_update and providers/list|set|disable with the
// official SDK 2.4.0 (its `unstable` APIs, which validate what they receive): the SDK's v1 and v2
// clients drive acp-kit's built-in agent (a real process), receiving its auth/status_update; and
// acp-kit's client drives an agent written with the SDK's v1 unstable agent API, which pushes an
// auth/status_update of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as v1 from '@agentclientprotocol/sdk/unstable';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import type { AuthStatus } from '../packages/protocol/src/index.js';
import { StreamTransport } from '../packages/protocol/src/rpc/stream-transport.js';
import { tempDir } from './support/temp.js';

const bin = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const children: ChildProcess[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function builtInAgent(): { output: WritableStream<Uint8Array>; input: ReadableStream<Uint8Array> } {
  const child = spawn(process.execPath, [bin, 'agent', '--model', 'demo'], {
    env: { ...process.env, ACP_KIT_DATA_DIR: tempDir('sdk-auth-'), ACP_KIT_DEMO_DELAY_MS: '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  if (!child.stdin || !child.stdout) throw new Error('the agent has no stdio pipes');
  return {
    output: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  };
}

const route = { providerId: 'openai', apiType: 'openai', baseUrl: 'http://127.0.0.1:9/v1' };
const keyed = { ...route, headers: { Authorization: 'Bearer sk-sdk' } };

describe('official SDK unstable clients -> acp-kit built-in agent', () => {
  it('v1: auth/status, providers/list|set|disable, and the agent’s auth/status_update', async () => {
    const { output, input } = builtInAgent();
    const updates: unknown[] = [];
    const out = await v1
      .client({ name: 'sdk-v1-auth' })
      .onNotification('auth/status_update', ({ params }) => void updates.push(params))
      .connectWith(v1.ndJsonStream(output, input), async (cx) => {
        const init = await cx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const before = await cx.request('auth/status', {});
        const list = await cx.request('providers/list', {});
        await cx.request('providers/set', keyed);
        const after = await cx.request('auth/status', {});
        const listed = await cx.request('providers/list', {});
        await cx.request('providers/disable', { providerId: 'openai' });
        // a round trip after the disable: its update has arrived before this answer
        const last = await cx.request('auth/status', {});
        return { init, before, list, after, listed, last };
      });
    expect(out.init.agentCapabilities).toMatchObject({ auth: { status: {} }, providers: {} });
    expect(out.before).toEqual({ state: 'not_required' });
    expect(out.list.providers.map((p) => p.providerId)).toEqual(['openai', 'anthropic']);
    expect(out.after).toEqual({ state: 'authenticated', accounts: [{ label: 'OpenAI API key', active: true }] });
    expect(out.listed.providers[0]?.current).toEqual({ apiType: 'openai', baseUrl: route.baseUrl });
    expect(out.last).toEqual({ state: 'not_required' });
    expect(updates).toEqual([out.after, { state: 'not_required' }]);
  });

  it('v2: the same through the v2 SDK', async () => {
    const { output, input } = builtInAgent();
    const updates: unknown[] = [];
    const stream = v2.ndJsonStream(output, input);
    const client = v2
      .client({ name: 'sdk-v2-auth' })
      .onNotification('auth/status_update', ({ params }) => void updates.push(params));
    const out = await client.connectWith(stream as unknown as Parameters<typeof client.connectWith>[0], async (cx) => {
      const init = await cx.request('initialize', {
        protocolVersion: 2,
        info: { name: 'sdk', version: '2' },
        capabilities: {},
      });
      await cx.request('providers/set', keyed);
      const after = await cx.request('auth/status', {});
      await cx.request('providers/disable', { providerId: 'openai' });
      const list = await cx.request('providers/list', {});
      return { init, after, list };
    });
    expect(out.init.capabilities).toMatchObject({ auth: { status: {} }, providers: {} });
    expect(out.after.state).toBe('authenticated');
    expect(out.list.providers.every((p) => p.current === null)).toBe(true);
    expect(updates).toEqual([out.after, { state: 'not_required' }]);
  });
});

describe('acp-kit client -> an agent written with the SDK unstable agent API', () => {
  /** An SDK v1 agent whose providers/set flips its auth state and pushes the change. */
  function sdkAgentV1(toAgent: PassThrough, fromAgent: PassThrough): void {
    let current: { apiType: string; baseUrl: string } | null = null;
    const status = () =>
      current ? { state: 'authenticated', accounts: [{ label: 'Gateway' }] } : { state: 'unauthenticated' };
    v1.agent({ name: 'sdk-agent-v1-auth' })
      .onRequest('initialize', () => ({
        protocolVersion: 1,
        agentCapabilities: { auth: { status: {} }, providers: {} },
        authMethods: [],
      }))
      .onRequest('auth/status', () => status())
      .onRequest('providers/list', () => ({
        providers: [{ providerId: 'main', supported: ['anthropic', 'openai'], required: true, current }],
      }))
      .onRequest('providers/set', async ({ params, client }) => {
        current = { apiType: params.apiType, baseUrl: params.baseUrl };
        await client.notify('auth/status_update', status());
      })
      .onRequest('providers/disable', () => undefined)
      .onRequest('session/new', () => ({ sessionId: 's1' }))
      .onRequest('session/prompt', () => ({ stopReason: 'end_turn' }))
      .connect(
        v1.ndJsonStream(
          Writable.toWeb(fromAgent) as WritableStream<Uint8Array>,
          Readable.toWeb(toAgent) as ReadableStream<Uint8Array>,
        ),
      );
  }

  it('v1: the client methods send what the SDK agent accepts; its update becomes an event', async () => {
    const toAgent = new PassThrough();
    const fromAgent = new PassThrough();
    sdkAgentV1(toAgent, fromAgent);
    const conn = await connect({ transport: new StreamTransport(fromAgent, toAgent), protocol: 1 });
    conns.push(conn);
    const events: AuthStatus[] = [];
    conn.on('authStatus', (s) => events.push(s));
    expect(await conn.authStatus()).toEqual({ state: 'unauthenticated' });
    expect(await conn.listProviders()).toEqual([
      { providerId: 'main', supported: ['anthropic', 'openai'], required: true, current: null },
    ]);
    await conn.setProvider({ providerId: 'main', apiType: 'anthropic', baseUrl: 'http://127.0.0.1:9/' });
    expect(events).toEqual([{ state: 'authenticated', accounts: [{ label: 'Gateway' }] }]);
    expect((await conn.listProviders())[0]?.current).toEqual({ apiType: 'anthropic', baseUrl: 'http://127.0.0.1:9/' });
    // `main` is required: the client refuses to send providers/disable for it (the schema's rule)
    await expect(conn.disableProvider('main')).rejects.toThrow(/required/);
  });
});

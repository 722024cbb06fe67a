// Interop on loopback: the official SDK's remote clients (createWebSocketStream, createHttpStream;
// v1 and v2 apps) drive acp-kit's server, and acp-kit's client drives the SDK's AcpServer through
// its Node handlers (both profiles, an SDK v1 and v2 agent app behind it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as acp1 from '@agentclientprotocol/sdk';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import { AcpServer as SdkServer } from '@agentclientprotocol/sdk/experimental/server';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { connect, type ClientConnection } from '../../client/src/index.js';
import type { AcpServer } from '../src/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { v1App, v2App } from '../../../test/fixtures/client-sdk-apps.mjs';
import { startE2EServer, TOKEN, wsUrl } from '../../../test/support/remote.js';

let server: AcpServer | undefined;
const cleanup: Array<() => unknown> = [];
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  for (const f of cleanup.splice(0).reverse()) await f();
  await server?.close(1000);
  server = undefined;
});

const streams = {
  websocket: (s: AcpServer) =>
    createWebSocketStream(wsUrl(s), { WebSocket: WebSocket as never, headers: { authorization: `Bearer ${TOKEN}` } }),
  http: (s: AcpServer) => createHttpStream(s.url, { headers: { authorization: `Bearer ${TOKEN}` } }),
};

describe.each(['websocket', 'http'] as const)('SDK %s client -> acp-kit serve', (kind) => {
  it('v1: initialize, session/new, prompt: the echo arrives before end_turn', async () => {
    server = await startE2EServer();
    const texts: string[] = [];
    const app = acp1.client({ name: 'sdk-v1' }).onNotification('session/update', ({ params }) => {
      const u = params.update as { sessionUpdate: string; content?: { text?: string } };
      if (u.sessionUpdate === 'agent_message_chunk') texts.push(u.content!.text!);
    });
    const conn = app.connect(streams[kind](server) as never);
    cleanup.push(() => conn.close());
    const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const r = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(texts).toEqual(['echo: hi']);
  });

  it('v2: a session streams to idle end_turn', async () => {
    server = await startE2EServer();
    const conn = acp2.client({ name: 'sdk-v2' }).connect(streams[kind](server) as never);
    cleanup.push(() => conn.close());
    const init = await conn.agent.request('initialize', {
      protocolVersion: 2,
      info: { name: 'sdk', version: '2' },
      capabilities: {},
    });
    expect(init.protocolVersion).toBe(2);
    const session = await conn.agent.buildSession('/tmp').start();
    await session.prompt('hi');
    const seen: string[] = [];
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === 'stop') {
        expect((m.update as { stopReason?: string }).stopReason).toBe('end_turn');
        break;
      }
      seen.push(
        m.update.sessionUpdate === 'agent_message_chunk'
          ? `chunk:${(m.update as { content: { text: string } }).content.text}`
          : m.update.sessionUpdate,
      );
    }
    expect(seen).toContain('chunk:echo: hi');
  });
});

/** The SDK's AcpServer behind Node's http server and `ws`, on loopback. */
async function startSdkServer(app: () => unknown): Promise<{ url: string }> {
  const sdk = new SdkServer({ createAgent: app as never });
  const wss = new WebSocketServer({ noServer: true });
  const http: Server = createServer(createNodeHttpHandler(sdk));
  http.on('upgrade', createNodeWebSocketUpgradeHandler(sdk, wss as never));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanup.push(async () => {
    await sdk.close();
    wss.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/acp` };
}

describe.each(['websocket', 'http'] as const)('acp-kit client -> SDK AcpServer over %s', (kind) => {
  it.each([1, 2] as const)('v%i agent app: a prompt ends end_turn with its text', async (v) => {
    const sdk = await startSdkServer(v === 1 ? v1App : v2App);
    const url = kind === 'websocket' ? sdk.url.replace(/^http/, 'ws') : sdk.url;
    const conn = await connect({ url, protocol: v === 2 ? 'auto' : 1 });
    open.push(conn);
    expect(conn.protocolVersion).toBe(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt('ping');
    expect(r.stopReason).toBe('end_turn');
    expect(
      s.state.messageList
        .filter((m) => m.role === 'agent')
        .map((m) => m.text)
        .join(''),
    ).toMatch(v === 1 ? /Hello from v1 \(ping\)/ : /ping/);
  });
});

/**
 * MCP over ACP (`mcp/message`, unstable MCP-over-ACP RFD) against the official SDK 2.4.0's own
 * implementation, both ways, over real stdio pipes:
 * - acp-kit's client serves an MCP SDK `McpServer` object; the SDK agent
 *   (test/fixtures/sdk-mcp-caller-agent.mjs) calls its tool with the SDK's `McpOverAcpCaller`,
 *   and a progress notification of the tool comes back to it;
 * - the SDK client serves a tool with the SDK's `McpOverAcpProvider`; acp-kit's built-in agent
 *   (`acp-kit agent --model demo`) lists and calls it;
 * - the fallback when the agent does not advertise `mcpCapabilities.acp`.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as sdk from '@agentclientprotocol/sdk/unstable';
import * as sdk2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import { tempDir } from './support/temp.js';

const CALLER = resolve('test/fixtures/sdk-mcp-caller-agent.mjs');
const ECHO_SERVER = resolve('test/fixtures/mcp-echo-server.mjs');
const BIN = resolve('bin/acp-kit.js');
const conns: ClientConnection[] = [];
const children: Array<() => void> = [];
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  for (const k of children) k();
});

/** An MCP SDK server whose `echo` tool reports one progress step before answering. */
function echoServer(): McpServer {
  const server = new McpServer({ name: 'tools', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
    return { content: [{ type: 'text', text: `echo:${text}` }] };
  });
  return server;
}

/** Methods of the requests the agent sent the client, in order (seen on the wire). */
const requestsIn = new WeakMap<ClientConnection, string[]>();

async function callerAgent(env: Record<string, string> = {}): Promise<ClientConnection> {
  const methods: string[] = [];
  const conn = await connect({
    command: process.execPath,
    args: [CALLER],
    env: { ...process.env, ...env },
    tap: {
      received: (m) => {
        if (m && typeof m === 'object' && 'method' in m && 'id' in m) methods.push(String(m.method));
      },
    },
  });
  requestsIn.set(conn, methods);
  conns.push(conn);
  return conn;
}

function agentText(messages: ReadonlyArray<{ role: string; text: string }>): string {
  return messages
    .filter((m) => m.role === 'agent')
    .map((m) => m.text)
    .join('');
}

describe('acp-kit client serves MCP over ACP to the official SDK agent (McpOverAcpCaller)', () => {
  it('the SDK agent calls a tool of an MCP server object; its progress notification reaches the agent', async () => {
    const conn = await callerAgent();
    expect(conn.agentCapabilities.mcp?.acp).toBe(true);
    const s = await conn.newSession({
      cwd: tempDir('mcpacp-'),
      mcpServers: [{ type: 'acp', name: 'tools', server: echoServer() }],
    });
    const sent = await conn.extRequest<{ params: { mcpServers: unknown[] } }>('_fixture/lastSessionNew', {});
    expect(sent.params.mcpServers).toEqual([
      { type: 'acp', name: 'tools', serverId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ]);
    await s.prompt('call echo {"text":"hi"}');
    expect(agentText(s.state.messageList)).toBe('result=echo:hi progress=notifications/progress:1');
    // the call came as one mcp/message request (the progress as an mcp/message notification back)
    expect(requestsIn.get(conn)).toEqual(['mcp/message']);
  });

  it('an inner MCP error comes back as the outcome, a tool failure as its result (never as ACP errors)', async () => {
    const conn = await callerAgent();
    const s = await conn.newSession({
      cwd: tempDir('mcpacp-'),
      mcpServers: [{ type: 'acp', name: 'tools', server: echoServer() }],
    });
    // a server without prompts answers prompts/list with the MCP error -32601
    await s.prompt('raw prompts/list');
    expect(agentText(s.state.messageList)).toBe('error -32601 Method not found');
    // the MCP SDK answers an unknown tool with an isError result
    await s.prompt('call nope {}');
    expect(agentText(s.state.messageList)).toContain('result=MCP error -32602: Tool nope not found progress=');
  });

  it('without the capability: a server object is refused naming it; a stdio fallback goes as a stdio server', async () => {
    const conn = await callerAgent({ SDK_NO_ACP: '1' });
    expect(conn.agentCapabilities.mcp?.acp).toBeUndefined();
    await expect(
      conn.newSession({ cwd: tempDir('mcpacp-'), mcpServers: [{ type: 'acp', name: 'tools', server: echoServer() }] }),
    ).rejects.toThrow(/mcpCapabilities\.acp/);
    await conn.newSession({
      cwd: tempDir('mcpacp-'),
      mcpServers: [
        {
          type: 'acp',
          name: 'tools',
          server: echoServer(),
          fallback: { command: process.execPath, args: [ECHO_SERVER] },
        },
      ],
    });
    const sent = await conn.extRequest<{ params: { mcpServers: unknown[] } }>('_fixture/lastSessionNew', {});
    // v1 stdio servers carry no `type`
    expect(sent.params.mcpServers).toEqual([
      { name: 'tools', command: process.execPath, args: [ECHO_SERVER], env: [] },
    ]);
  });
});

/** `acp-kit agent --model demo` as a process; its stdio as a web stream pair for the SDK. */
function builtinAgent(cwd: string): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } {
  const child = spawn(process.execPath, [BIN, 'agent', '--model', 'demo'], {
    cwd,
    env: { ...process.env, ACP_KIT_DATA_DIR: resolve(cwd, '.data'), ACP_KIT_DEMO_DELAY_MS: '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(() => child.kill('SIGKILL'));
  return {
    writable: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    readable: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  };
}

/** A stateless MCP server for the SDK's provider: `shout` upper-cases; no `initialize` (2026-07-28 has none). */
function shoutHandler(seen: Array<{ method: string; version: string }>): sdk.McpRequestHandler {
  return (ctx) => {
    seen.push({ method: ctx.method, version: ctx.protocolVersion });
    if (ctx.method === 'tools/list')
      return {
        result: {
          tools: [
            {
              name: 'shout',
              description: 'Upper-cases the text',
              inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
              annotations: { readOnlyHint: true },
            },
          ],
        },
      };
    if (ctx.method === 'tools/call') {
      const args = ctx.params?.arguments;
      const text = args && typeof args === 'object' && 'text' in args ? String(args.text) : '';
      return { result: { content: [{ type: 'text', text: text.toUpperCase() }] } };
    }
    // the stateless binding has no `initialize`: the agent's transport must cope
    throw new sdk.McpProtocolError(-32601, `Method not found: ${ctx.method}`);
  };
}

describe("the official SDK client serves MCP over ACP (McpOverAcpProvider) to acp-kit's built-in agent", () => {
  it('v1: the agent advertises mcpCapabilities.acp, lists the tool and calls it through mcp/message', async () => {
    const cwd = tempDir('mcpacp-agent-');
    const stream = builtinAgent(cwd);
    const seen: Array<{ method: string; version: string }> = [];
    const provider = new sdk.McpOverAcpProvider();
    const updates: Array<Record<string, unknown>> = [];
    const app = sdk
      .client({ name: 'sdk-mcp-provider' })
      .onRequest('mcp/message', provider.handleRequest)
      .onNotification(sdk.methods.client.session.update, ({ params }) => void updates.push(params.update))
      .onRequest(sdk.methods.client.session.requestPermission, ({ params }) => ({
        outcome: { outcome: 'selected', optionId: params.options[0]?.optionId ?? '' },
      }));
    const conn = app.connect(sdk.ndJsonStream(stream.writable, stream.readable));
    const tools = provider.registerServer(conn.agent, { name: 'tools', handler: shoutHandler(seen) });
    const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities?.mcpCapabilities?.acp).toBe(true);
    const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [tools.declaration] });
    const r = await conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'mcp tools shout {"text": "quiet please"}' }],
    });
    expect(r.stopReason).toBe('end_turn');
    const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(JSON.stringify(done?.content)).toContain('QUIET PLEASE');
    expect(seen.map((s) => s.method)).toEqual(['initialize', 'tools/list', 'tools/call']);
    expect(new Set(seen.map((s) => s.version))).toEqual(new Set(['2026-07-28']));
    conn.close();
  });

  it('v2: session.mcp.acp, the declaration through buildSession().withMcpServer(), the tool called', async () => {
    const cwd = tempDir('mcpacp-agent-v2-');
    const stream = builtinAgent(cwd);
    const seen: Array<{ method: string; version: string }> = [];
    const provider = new sdk2.McpOverAcpProvider();
    const app = sdk2.client({ name: 'sdk-v2-mcp-provider' }).onRequest('mcp/message', provider.handleRequest);
    const conn = app.connect(sdk2.ndJsonStream(stream.writable, stream.readable));
    const tools = provider.registerServer(conn.agent, { name: 'tools', handler: shoutHandler(seen) });
    const init = await conn.agent.request('initialize', {
      protocolVersion: 2,
      info: { name: 'sdk', version: '2' },
      capabilities: {},
    });
    expect(init.capabilities?.session?.mcp?.acp).toEqual({});
    const session = await conn.agent.buildSession(cwd).withMcpServer(tools.declaration).start();
    await session.prompt('mcp tools shout {"text": "v two"}');
    const contents: string[] = [];
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === 'stop') break;
      if (m.update.sessionUpdate === 'tool_call_update' && m.update.status === 'completed')
        contents.push(JSON.stringify(m.update.content));
    }
    expect(contents.join()).toContain('V TWO');
    expect(seen.map((s) => s.method)).toEqual(['initialize', 'tools/list', 'tools/call']);
    conn.close();
  });
});

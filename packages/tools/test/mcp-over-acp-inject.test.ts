/**
 * The proxy-side MCP-over-ACP helper (`injectMcpServer`, unstable MCP-over-ACP RFD) in a minimal
 * message-level proxy between acp-kit's client and the built-in agent (`acp-kit agent`, a real
 * process over pipes; needs `npm run build`): the proxy adds its own MCP server to the client's
 * `session/new`, answers the agent's `mcp/message` requests for it and forwards everything else.
 * The client offered no server and never sees an `mcp/message`.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough, type Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { AcpError } from '../../protocol/src/index.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';
import { agentAdvertisesMcpOverAcp, injectMcpServer, type McpInjection } from '../src/mcp-over-acp/index.js';
import { tempDir } from '../../../test/support/temp.js';

const BIN = resolve('bin/acp-kit.js');
const cleanups: Array<() => void> = [];
const conns: ClientConnection[] = [];
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  for (const c of cleanups) c();
});

function toolServer(): McpServer {
  const server = new McpServer({ name: 'proxy-tools', version: '1.0.0' });
  server.registerTool(
    'echo',
    { inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text: `proxied: ${text}` }] }),
  );
  return server;
}

const send = (out: Writable, m: object): void => void out.write(`${JSON.stringify(m)}\n`);

/** Client <-> this proxy <-> agent process: lines in, lines out, the helper on the session/new and mcp/message paths. */
function startProxiedAgent(cwd: string): { transport: StreamTransport; seen: { sessionNew: unknown[] } } {
  const agent = spawn(process.execPath, [BIN, 'agent', '--model', 'demo'], {
    cwd,
    env: { ...process.env, ACP_KIT_DATA_DIR: resolve(cwd, '.data'), ACP_KIT_DEMO_DELAY_MS: '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  cleanups.push(() => agent.kill('SIGKILL'));
  const fromClient = new PassThrough();
  const toClient = new PassThrough();
  const seen = { sessionNew: [] as unknown[] };
  let initializeId: unknown;
  let agentAcp = false;
  let injection: McpInjection<object> | undefined;
  createInterface({ input: fromClient }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.method === 'initialize') initializeId = m.id;
    if (m.method === 'session/new') {
      seen.sessionNew.push(m.params);
      if (agentAcp) {
        injection = injectMcpServer(m.params, { name: 'injected', server: toolServer() });
        m.params = injection.params;
      }
    }
    send(agent.stdin, m);
  });
  createInterface({ input: agent.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && m.id === initializeId && m.result) agentAcp = agentAdvertisesMcpOverAcp(m.result);
    const answer =
      typeof m.method === 'string' && m.id !== undefined
        ? injection?.handleRequest(m.method, m.params, {
            notify: (method, params) => send(agent.stdin, { jsonrpc: '2.0', method, params }),
          })
        : undefined;
    if (!answer) return send(toClient, m);
    answer.then(
      (result) => send(agent.stdin, { jsonrpc: '2.0', id: m.id, result }),
      (e: unknown) => {
        const err = AcpError.from(e);
        send(agent.stdin, { jsonrpc: '2.0', id: m.id, error: { code: err.code, message: err.message } });
      },
    );
  });
  cleanups.push(() => void injection?.close());
  return { transport: new StreamTransport(toClient, fromClient), seen };
}

describe('injectMcpServer in a proxy in front of the built-in agent', () => {
  for (const version of [1, 2] as const) {
    it(`v${version}: the agent calls the injected server's tool; its mcp/message requests never reach the client`, async () => {
      const cwd = tempDir('mcpacp-proxy-');
      const { transport, seen } = startProxiedAgent(cwd);
      const received: string[] = [];
      const conn = await connect({
        transport,
        protocol: version,
        tap: { received: (m) => void received.push(JSON.stringify(m)) },
      });
      expect(conn.protocolVersion).toBe(version);
      conns.push(conn);
      const s = await conn.newSession({ cwd });
      await s.prompt('mcp injected echo {"text": "from the proxy"}');
      const call = [...s.state.toolCalls.values()].find((c) => c.name === 'mcp__injected__echo');
      expect(call?.status).toBe('completed');
      expect(JSON.stringify(call?.content)).toContain('proxied: from the proxy');
      expect(seen.sessionNew).toEqual([expect.objectContaining({ mcpServers: [] })]);
      // the tap saw the session's traffic, but no mcp/message: the proxy answered those
      expect(received.some((m) => m.includes('"session/update"'))).toBe(true);
      expect(received.some((m) => m.includes('"mcp/message"'))).toBe(false);
    });
  }

  it("another server id or another method is not the injection's: it is left to forward", () => {
    const inj = injectMcpServer(
      { cwd: '/w', mcpServers: [{ name: 'x', command: '/x', args: [], env: [] }] },
      {
        name: 'injected',
        server: toolServer(),
      },
    );
    expect(inj.params.mcpServers).toEqual([
      { name: 'x', command: '/x', args: [], env: [] },
      { type: 'acp', name: 'injected', serverId: inj.declaration.serverId },
    ]);
    expect(
      inj.handleRequest('mcp/message', { serverId: 'other', requestId: 'r', method: 'tools/list' }),
    ).toBeUndefined();
    expect(inj.handleRequest('session/request_permission', { serverId: inj.declaration.serverId })).toBeUndefined();
    expect(agentAdvertisesMcpOverAcp({ agentCapabilities: { mcpCapabilities: { acp: true } } })).toBe(true);
    expect(agentAdvertisesMcpOverAcp({ capabilities: { session: { mcp: { acp: {} } } } })).toBe(true);
    expect(agentAdvertisesMcpOverAcp({ capabilities: { session: { mcp: { stdio: {} } } } })).toBe(false);
    void inj.close();
  });
});

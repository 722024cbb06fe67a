// The conductor's MCP over ACP (Proxy Chains RFD, "MCP-over-ACP support"; MCP-over-ACP RFD, "Bridging for agents
// without native support"), real processes over real pipes: the echo example agent does not advertise MCP over ACP,
// the conductor advertises it to its component and the editor anyway, and bridges: each `acp` server of a
// session/new reaches the agent as a stdio server (a shim), whose MCP requests travel back up the chain as
// mcp/message. Both the MCP-injector example component's server and one the editor offers are called in a turn.
import { readFileSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '@acp-kit/client';
import { StreamTransport } from '@acp-kit/protocol/rpc';
import { startConductor, type ConductorHandle } from '../src/conductor/index.js';
import { McpBridge } from '../src/conductor/mcp-bridge.js';
import { tempDir } from '../../../test/support/temp.js';

const INJECTOR = fileURLToPath(new URL('../../../examples/mcp-tool-component.mjs', import.meta.url));
const ECHO = fileURLToPath(new URL('../../../examples/echo-agent.mjs', import.meta.url));
const node = (script: string) => ({ command: process.execPath, args: [script] });
const open: Array<{ handle: ConductorHandle; conn: ClientConnection }> = [];
afterEach(async () => {
  for (const { handle, conn } of open.splice(0)) {
    await conn.close();
    await handle.stop();
  }
});

function clientTools(): McpServer {
  const server = new McpServer({ name: 'editor-tools', version: '1.0.0' });
  server.registerTool(
    'echo',
    { inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text: `editor: ${text}` }] }),
  );
  return server;
}

type TraceLine = { type: string; from?: string; to?: string; method?: string; params?: any; payload?: any };

describe.each([1, 2] as const)('conductor in front of an agent without MCP over ACP, v%i', (v) => {
  it('advertises it, rewrites acp servers to stdio shims and relays their calls up the chain as mcp/message', async () => {
    const cwd = tempDir('conduct-bridge');
    const trace = join(cwd, 'chain.jsons');
    const toConductor = new PassThrough();
    const fromConductor = new PassThrough();
    const handle = startConductor({
      components: [node(INJECTOR)],
      agent: { ...node(ECHO), cwd },
      client: new StreamTransport(toConductor, fromConductor),
      trace,
      onStderr: () => undefined,
    });
    const conn = await connect({ transport: new StreamTransport(fromConductor, toConductor), protocol: v });
    open.push({ handle, conn });
    expect(conn.agentCapabilities.mcp?.acp).toBe(true);

    const session = await conn.newSession({
      cwd,
      mcpServers: [{ type: 'acp', name: 'editor', server: clientTools() }],
    });
    await session.prompt('mcp notes session_notes {}');
    await session.prompt('mcp editor echo {"text": "hi"}');
    const results = JSON.stringify([...session.state.toolCalls.values()].map((t) => t.content));
    expect(results).toContain('notes: 1 prompt(s): mcp notes session_notes {}');
    expect(results).toContain('editor: hi');

    await conn.close();
    await handle.stop();
    const lines: TraceLine[] = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // the agent's own answer lacks the capability; the component and the editor got it
    const answers = lines.filter((l) => l.type === 'response' && l.payload?.protocolVersion === v);
    const acpOf = (p: any): unknown =>
      v === 1 ? p.agentCapabilities?.mcpCapabilities?.acp : p.capabilities?.session?.mcp?.acp;
    expect(answers.map((a) => `${a.from}->${a.to} ${JSON.stringify(acpOf(a.payload) ?? null)}`)).toEqual([
      'Agent->Proxy(0) null',
      `Proxy(0)->Client ${v === 1 ? 'true' : '{}'}`,
    ]);
    // the agent got both servers as stdio shims, never an acp entry
    const setup = lines.find((l) => l.method === 'session/new' && l.to === 'Agent');
    const servers: any[] = setup?.params.mcpServers ?? [];
    expect(servers.map((s) => [s.type ?? 'stdio', s.name, s.command, s.args[0]])).toEqual([
      ['stdio', 'editor', process.execPath, '-e'],
      ['stdio', 'notes', process.execPath, '-e'],
    ]);
    // tools/call went up from the agent: the component answered its own, the editor the other
    const calls = lines.filter((l) => l.method === 'mcp/message' && l.params?.method === 'tools/call');
    expect(calls.map((c) => `${c.from}->${c.to}`)).toEqual(['Agent->Proxy(0)', 'Agent->Proxy(0)', 'Proxy(0)->Client']);
  }, 60_000);
});

// The bridge alone, over its real Unix socket (what the shim joins to the agent's stdio): the agent's MCP
// requests become mcp/message requests; notifications/cancelled aborts the outer one; an mcp/message
// notification of a relayed request reaches that request's connection; a stateless server's refused
// initialize is answered with a handshake.
describe('McpBridge over its socket', () => {
  it('relays requests, cancels, delivers request-scoped notifications and answers a refused handshake', async () => {
    const sent: Array<{ params: Record<string, unknown>; signal: AbortSignal; answer: (v: unknown) => void }> = [];
    let onSent: () => void = () => undefined;
    const bridge = new McpBridge(2, (params, signal) => {
      const p = new Promise<unknown>((answer) => sent.push({ params, signal, answer }));
      onSent();
      return p;
    });
    const nextSent = () => new Promise<void>((r) => (onSent = r));
    try {
      const rewritten = bridge.rewrite('session/new', {
        cwd: '/',
        mcpServers: [{ type: 'acp', name: 'tools', serverId: 'srv-1' }],
      }) as { mcpServers: Array<{ type: string; args: string[] }> };
      const entry = rewritten.mcpServers[0];
      expect(entry?.type).toBe('stdio');
      const socket = connectSocket(entry?.args[2] ?? '');
      const lines: Array<Record<string, any>> = [];
      let onLine: () => void = () => undefined;
      createInterface({ input: socket }).on('line', (l) => {
        lines.push(JSON.parse(l));
        onLine();
      });
      const nextLine = () => new Promise<void>((r) => (onLine = r));
      const write = (m: object) => socket.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);

      // a stateless server refuses initialize with an inner error: the bridge answers the handshake
      let s = nextSent();
      write({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } });
      await s;
      expect(sent[0]?.params).toMatchObject({ serverId: 'srv-1', method: 'initialize' });
      let l = nextLine();
      sent[0]?.answer({ error: { code: -32601, message: 'no handshake' } });
      await l;
      expect(lines[0]).toMatchObject({ id: 0, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} } } });

      // a tool call: the outer request carries the MCP metadata; progress comes back; the agent cancels it
      s = nextSent();
      write({ id: 1, method: 'tools/call', params: { name: 'slow' } });
      await s;
      const call = sent[1];
      expect(call?.params.params).toMatchObject({
        name: 'slow',
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      });
      l = nextLine();
      const progress = { requestId: call?.params.requestId, method: 'notifications/progress', params: { progress: 1 } };
      expect(bridge.takeNotification(progress)).toBe(true);
      await l;
      expect(lines[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
      expect(bridge.takeNotification({ ...progress, requestId: 'someone-else' })).toBe(false);
      const aborted = new Promise<void>((r) => call?.signal.addEventListener('abort', () => r()));
      write({ method: 'notifications/cancelled', params: { requestId: 1 } });
      await aborted;
      l = nextLine();
      call?.answer({ error: { code: -32800, message: 'cancelled' } });
      await l;
      expect(lines[2]).toMatchObject({ id: 1, error: { code: -32800 } });
      socket.destroy();
    } finally {
      bridge.close();
    }
  });
});

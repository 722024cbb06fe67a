// The conductor's MCP over ACP (Proxy Chains RFD, "MCP-over-ACP support"; MCP-over-ACP RFD, "Bridging for agents
// without native support"), real processes over real pipes: the echo example agent does not advertise MCP over ACP,
// the conductor advertises it to its component and the editor anyway, and bridges: each `acp` server of a
// session/new reaches the agent as a stdio server (a shim), whose MCP requests travel back up the chain as
// mcp/message. Both the MCP-injector example component's server and one the editor offers are called in a turn.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '@acp-kit/client';
import { StreamTransport } from '@acp-kit/protocol/rpc';
import { startConductor, type ConductorHandle } from '../src/conductor/index.js';
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

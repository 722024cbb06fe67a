// MCP tool call round trip: a server offered over the ACP connection (MCP over ACP, `mcp/message`)
// vs the same MCP SDK server as a stdio process. Both are measured from one agent process with
// the MCP SDK's Client: over acp-kit's AcpMcpClientTransport (the built-in agent's) to an
// McpServer object in the client process, and over StdioClientTransport to
// test/fixtures/mcp-echo-server.mjs; and the agent runtime's channel alone (no MCP client), which
// separates the binding's cost from the MCP client's. Alone: node bench/mcp-over-acp.mjs [calls]
import { fileURLToPath } from 'node:url';
import { percentile } from './common.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const ECHO_SERVER = here('../test/fixtures/mcp-echo-server.mjs');
const WARMUP = 50;

/** `n` sequential `tools/call echo` through `client`, after a warm-up; sorted round trips in ms. */
async function time(client, n) {
  for (let i = 0; i < WARMUP; i++) await client.callTool({ name: 'echo', arguments: { text: 'w' } });
  const rtts = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await client.callTool({ name: 'echo', arguments: { text: `c${i}` } });
    rtts.push(performance.now() - t0);
  }
  return rtts.sort((a, b) => a - b);
}

/** The same calls on the agent runtime's channel itself (`session.mcpOverAcp`), without an MCP client. */
async function timeChannel(channel, serverId, n) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const call = (text) => channel.request(serverId, 'tools/call', { name: 'echo', arguments: { text }, _meta: meta });
  for (let i = 0; i < WARMUP; i++) await call('w');
  const rtts = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call(`c${i}`);
    rtts.push(performance.now() - t0);
  }
  return rtts.sort((a, b) => a - b);
}

async function agent() {
  const { serveAgent } = await import('@acp-kit/agent');
  const { stdioTransport } = await import('@acp-kit/protocol/rpc');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { AcpMcpClientTransport } = await import('../packages/coding-agent/dist/mcp/acp-transport.js');
  const info = { name: 'mcp-over-acp-bench', version: '0' };
  const conn = serveAgent(
    {
      info: { name: 'mcp-over-acp-bench-agent', version: '0.0.0' },
      capabilities: { mcp: { stdio: true, acp: true } },
      async prompt(turn) {
        const n = Number(turn.prompt[0]?.text ?? 0);
        const acpServer = turn.session.mcpServers.find((s) => s.type === 'acp');
        const overAcp = new Client(info);
        await overAcp.connect(new AcpMcpClientTransport(turn.session.mcpOverAcp, acpServer, info));
        const acp = await time(overAcp, n);
        await overAcp.close();
        const channel = await timeChannel(turn.session.mcpOverAcp, acpServer.serverId, n);
        const overStdio = new Client(info);
        await overStdio.connect(new StdioClientTransport({ command: process.execPath, args: [ECHO_SERVER] }));
        const stdio = await time(overStdio, n);
        await overStdio.close();
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId: turn.session.newId('msg'),
          content: { type: 'text', text: JSON.stringify({ acp, channel, stdio }) },
        });
        return 'end_turn';
      },
    },
    stdioTransport(),
    { store: null },
  );
  await conn.closed;
  process.exit(0);
}

/**
 * An agent without MCP over ACP behind `acp-kit conduct`: the conductor bridges the client's `acp`
 * server to a stdio shim (docs/conductor.md), which this agent calls like any stdio server.
 */
async function bridgedAgent() {
  const { serveAgent } = await import('@acp-kit/agent');
  const { stdioTransport } = await import('@acp-kit/protocol/rpc');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const info = { name: 'mcp-over-acp-bench', version: '0' };
  const conn = serveAgent(
    {
      info: { name: 'mcp-over-acp-bench-bridged-agent', version: '0.0.0' },
      capabilities: { mcp: { stdio: true } },
      async prompt(turn) {
        const n = Number(turn.prompt[0]?.text ?? 0);
        const shim = turn.session.mcpServers.find((s) => 'command' in s && s.args?.[0] === '-e');
        const client = new Client(info);
        await client.connect(new StdioClientTransport({ command: shim.command, args: shim.args }));
        const bridged = await time(client, n);
        await client.close();
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId: turn.session.newId('msg'),
          content: { type: 'text', text: JSON.stringify({ bridged }) },
        });
        return 'end_turn';
      },
    },
    stdioTransport(),
    { store: null },
  );
  await conn.closed;
  process.exit(0);
}

/** Round trips the agent at `args` reports for `calls` calls to `server`, offered over ACP (v2). */
async function agentRun(args, server, calls) {
  const { connect } = await import('@acp-kit/client');
  const conn = await connect({ command: process.execPath, args, protocol: 2 });
  try {
    const s = await conn.newSession({ cwd: process.cwd(), mcpServers: [{ type: 'acp', name: 'bench', server }] });
    await s.prompt(String(calls));
    const text = s.state.messageList
      .filter((m) => m.role === 'agent')
      .map((m) => m.text)
      .join('');
    return JSON.parse(text);
  } finally {
    await conn.close();
  }
}

/** Runs the agents above with an McpServer object offered over ACP; one row per transport. */
export async function runMcpOverAcpBench({ calls = 1000 } = {}) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { z } = await import('zod');
  const echoServer = () => {
    const server = new McpServer({ name: 'bench', version: '0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: `echo: ${text}` }],
    }));
    return server;
  };
  const { acp, channel, stdio } = await agentRun([here('./mcp-over-acp.mjs'), '--agent'], echoServer(), calls);
  const conduct = [here('../bin/acp-kit.js'), 'conduct', '--', process.execPath, here('./mcp-over-acp.mjs')];
  const { bridged } = await agentRun([...conduct, '--agent-bridged'], echoServer(), calls);
  const row = (mode, r) => ({
    mode,
    calls,
    p50: percentile(r, 50),
    p99: percentile(r, 99),
    perSec: 1000 / (r.reduce((a, b) => a + b, 0) / r.length),
  });
  return [
    row('MCP over ACP: MCP SDK Client over AcpMcpClientTransport (server in the client process)', acp),
    row('MCP over ACP: session.mcpOverAcp.request, no MCP client (same server)', channel),
    row('stdio MCP server process: MCP SDK Client over StdioClientTransport', stdio),
    row('MCP over ACP through acp-kit conduct (agent without it: stdio shim, conductor, client)', bridged),
  ];
}

export function formatMcpOverAcpRows(rows) {
  const f = (n, d) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  return [
    '| transport | calls | tools/call p50 ms | p99 ms | calls/s |',
    '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.mode} | ${r.calls} | ${f(r.p50, 3)} | ${f(r.p99, 3)} | ${f(r.perSec, 0)} |`),
  ].join('\n');
}

if (process.argv[2] === '--agent') await agent();
else if (process.argv[2] === '--agent-bridged') await bridgedAgent();
else if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(formatMcpOverAcpRows(await runMcpOverAcpBench({ calls: Number(process.argv[2] ?? 1000) })));

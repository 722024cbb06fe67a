import { AcpError, type McpServer } from '@acp-kit/protocol';
import { McpStdioRelay } from './mcp-over-acp-stdio.js';
import type { McpOverAcpServers, OfferedMcpServer, RelayedMcpServer } from './mcp-over-acp.js';

/** A `mcpServers` entry as a client gives it: a wire entry, or one the client serves itself. */
export type SessionMcpServer = McpServer | OfferedMcpServer | RelayedMcpServer;

function isOffered(s: SessionMcpServer): s is OfferedMcpServer {
  return s.type === 'acp' && 'server' in s && typeof s.server === 'object' && s.server !== null;
}

function isRelayed(s: SessionMcpServer): s is RelayedMcpServer {
  return s.type === 'acp' && !('server' in s) && 'command' in s && typeof s.command === 'string';
}

/**
 * The wire `mcpServers` for a session: entries the client serves itself are registered on the
 * connection and sent as `{ type: "acp", name, serverId }` when the agent advertises MCP over ACP
 * (v1 `mcpCapabilities.acp`, v2 `session.mcp.acp`). Without it (the fallback the RFD leaves to
 * the client): an entry with a command goes as a plain stdio server the agent starts itself; one
 * with only a server object is refused with an error naming the capability.
 */
export function resolveMcpServers(
  entries: readonly SessionMcpServer[],
  agentSupportsAcp: boolean,
  servers: McpOverAcpServers,
  capabilityName: string,
): McpServer[] {
  return entries.map((s, i) => {
    if (!isOffered(s) && !isRelayed(s)) return s;
    if (agentSupportsAcp) {
      if (isOffered(s)) return servers.offer(s.name, s.server);
      return servers.register(s.name, new McpStdioRelay(s));
    }
    const stdio = isOffered(s) ? s.fallback : s;
    if (stdio)
      return { type: 'stdio', name: s.name, command: stdio.command, args: stdio.args ?? [], env: stdio.env ?? [] };
    throw AcpError.invalidParams(
      `params.mcpServers[${i}]: the agent does not advertise MCP over ACP (${capabilityName}), and this server has no stdio fallback command`,
      { path: `params.mcpServers[${i}].type` },
    );
  });
}

import type { AgentSession } from '@acp-kit/agent';
import type { Tool } from '../tool.js';
import { McpConnections, type McpConnectOptions, type McpServerStatus } from './mcp-connections.js';

const KEY = 'acp-kit/coding-agent/mcp';

/** Options of {@link openSessionMcp}: {@link McpConnectOptions} without the per-session `cwd`. */
export type SessionMcpOptions = Omit<McpConnectOptions, 'cwd'>;

/**
 * Connects the session to the MCP servers the client passed (`session/new`, `session/load`,
 * `session/resume`: each request's list is the complete set, ACP-V2-RESUME-09) and keeps the
 * connections in `session.data`. Failed servers are reported to the user right after the setup
 * response (see {@link reportMcpFailures}); they never fail the session.
 */
export async function openSessionMcp(
  session: AgentSession,
  options: SessionMcpOptions = {},
): Promise<McpConnections | undefined> {
  if (session.mcpServers.length === 0) return undefined;
  const conns = await McpConnections.open(session.mcpServers, {
    ...options,
    cwd: session.cwd,
    ...(session.mcpOverAcp ? { mcpOverAcp: session.mcpOverAcp } : {}),
  });
  session.data.set(KEY, conns);
  const failures = conns.failures();
  // after the response: a `session/new` client cannot route updates of a session id it has not seen yet
  if (failures.length > 0) setImmediate(() => reportMcpFailures(session, failures));
  return conns;
}

/** The session's MCP connections (undefined when it has no servers). */
export function sessionMcp(session: AgentSession): McpConnections | undefined {
  const v = session.data.get(KEY);
  return v instanceof McpConnections ? v : undefined;
}

/** Tools of the session's connected MCP servers (empty without servers). */
export function sessionMcpTools(session: AgentSession): Tool[] {
  return sessionMcp(session)?.tools() ?? [];
}

/** Closes the session's MCP connections (stdio server processes end). */
export async function closeSessionMcp(session: AgentSession): Promise<void> {
  const conns = sessionMcp(session);
  if (!conns) return;
  session.data.delete(KEY);
  await conns.close();
}

/** One line per failed server, for messages and the system prompt. */
export function describeMcpFailure(s: McpServerStatus): string {
  return `MCP server "${s.name}" (${s.transport}) could not be started: ${s.error ?? 'unknown error'}. Its tools are not available in this session.`;
}

/**
 * Tells the user which servers failed: a `notice` per server where notices are allowed (v2
 * always; v1 when the client advertised `session.notices`, ACP-V1-NOTICE-01), otherwise an
 * agent message (the user must see it).
 */
export function reportMcpFailures(session: AgentSession, failures: readonly McpServerStatus[]): void {
  if (failures.length === 0) return;
  const notices = session.client.protocolVersion === 2 || session.client.capabilities.notices === true;
  if (notices) {
    for (const f of failures) {
      session.send({
        sessionUpdate: 'notice',
        severity: 'warning',
        title: `MCP server "${f.name}" is not available`,
        description: describeMcpFailure(f),
      });
    }
    return;
  }
  session.send({
    sessionUpdate: 'agent_message_chunk',
    messageId: session.newId('msg'),
    content: { type: 'text', text: failures.map((f) => `⚠️ ${describeMcpFailure(f)}`).join('\n') },
  });
}

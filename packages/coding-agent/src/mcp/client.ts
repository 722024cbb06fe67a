/**
 * `@acp-kit/coding-agent/mcp` (also `acp-kit/agent/mcp`): an MCP client for any agent written on
 * `@acp-kit/agent`, the same one the built-in coding agent uses. The agent runtime itself
 * connects no MCP server (it stays free of the MCP SDK); an agent that wants the servers a client
 * passes in `session/new` / `session/load` / `session/resume` opts in here:
 *
 * ```js
 * import { connectSessionMcp, closeSessionMcp, sessionMcpServers, MCP_CAPABILITIES } from 'acp-kit/agent/mcp';
 * const agent = {
 *   capabilities: { mcp: MCP_CAPABILITIES },
 *   async openSession(session) { await connectSessionMcp(session); },
 *   closeSession: closeSessionMcp,
 *   async prompt(turn) { const tools = sessionMcpServers(turn.session)?.tools() ?? []; ... },
 * };
 * ```
 * @module
 */
import type { AgentSession } from '@acp-kit/agent';
import type { AnyToolCallContent } from '@acp-kit/protocol';
import type { JsonSchema } from '../model.js';
import { McpConnections, type McpConnectOptions, type McpServerStatus } from './mcp-connections.js';
import { toolOutcome } from './mcp-tool.js';
import { openSessionMcp, sessionMcp, type SessionMcpOptions } from './session-mcp.js';
import type { McpServer } from '@acp-kit/protocol';

export {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  type McpConnectOptions,
  type McpServerStatus,
} from './mcp-connections.js';
export { closeSessionMcp, type SessionMcpOptions } from './session-mcp.js';

/**
 * The transports {@link connectMcpServers} connects, as `AgentCapabilities.mcp`: advertise exactly
 * this (or less), so that a client never passes a server of a transport nobody connects. (`sse`
 * is v1 only; the v2 codec drops it.)
 */
export const MCP_CAPABILITIES: Readonly<{ stdio: true; http: true; sse: true }> = Object.freeze({
  stdio: true,
  http: true,
  sse: true,
});

/** What a call of an MCP tool answered, in ACP terms. */
export interface McpToolResult {
  /** The result as ACP tool call content (for `tool_call_update.content`). */
  content: AnyToolCallContent[];
  /** The result as text (for a model or a message), at most 100,000 characters. */
  text: string;
  /** The server said the call failed (`isError`): report the tool call `failed`. */
  isError: boolean;
  /** The tool's `structuredContent`, when it sent one (e.g. for `rawOutput`). */
  structuredContent?: unknown;
}

/** One tool of a connected MCP server. */
export interface McpTool {
  /** Unique among the session's servers: `mcp__<server>__<tool>`, `[A-Za-z0-9_-]`, at most 64 characters. */
  readonly name: string;
  /** The server's name as the client configured it. */
  readonly server: string;
  /** The tool's own name on its server. */
  readonly toolName: string;
  readonly title: string | undefined;
  readonly description: string;
  /** The tool's input JSON Schema (an object schema). */
  readonly inputSchema: JsonSchema;
  /** The server claims the tool changes nothing (`annotations.readOnlyHint`); a claim, not a guarantee. */
  readonly readOnly: boolean;
  /**
   * `tools/call`. Rejects when the server is not connected, on a protocol error, and with an
   * `AbortError` when `signal` fires (the server is told to cancel); a tool's own failure
   * resolves with `isError: true`.
   */
  call(args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<McpToolResult>;
}

/** The connected MCP servers of one session. */
export interface McpServers {
  /** Every configured server: `connected`, `failed` (with `error`) or `closed`. */
  status(): McpServerStatus[];
  /** The tools of the connected servers (resources are not included: see the coding agent for those). */
  tools(): McpTool[];
  /** The tool `toolName` of server `server`, if that server is connected and offers it. */
  tool(server: string, toolName: string): McpTool | undefined;
  /** Closes every connection (stdio servers get EOF, then SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects to `servers` (a session's `mcpServers`, any version: the neutral model), all at once,
 * each within `options.connectTimeoutMs`. Never rejects for a server that cannot be reached: it is
 * listed `failed` in {@link McpServers.status} and logged. The caller closes the result.
 */
export async function connectMcpServers(
  servers: readonly McpServer[],
  options: McpConnectOptions,
): Promise<McpServers> {
  return wrap(await McpConnections.open(servers, options));
}

/**
 * {@link connectMcpServers} for an agent session, from `openSession`: its `mcpServers`, its `cwd`
 * for stdio servers; kept with the session for {@link sessionMcpServers}, and failed servers are
 * reported to the user (a `notice`, or an agent message in v1 without notices). Pair it with
 * `closeSession: closeSessionMcp`, which ends the servers with the session.
 */
export async function connectSessionMcp(session: AgentSession, options: SessionMcpOptions = {}): Promise<McpServers> {
  const conns = await openSessionMcp(session, options);
  return conns ? wrap(conns) : EMPTY;
}

/** The servers {@link connectSessionMcp} connected for `session` (undefined before, after closing, or without servers). */
export function sessionMcpServers(session: AgentSession): McpServers | undefined {
  const conns = sessionMcp(session);
  return conns ? wrap(conns) : undefined;
}

const EMPTY: McpServers = {
  status: () => [],
  tools: () => [],
  tool: () => undefined,
  close: () => Promise.resolve(),
};

function wrap(conns: McpConnections): McpServers {
  const tools = (): McpTool[] =>
    conns.toolEntries().flatMap((e) => {
      if (e.kind !== 'tool') return [];
      const { def, server } = e;
      const tool: McpTool = {
        name: e.name,
        server: server.serverName,
        toolName: def.name,
        title: def.title ?? def.annotations?.title,
        description: def.description ?? '',
        inputSchema: def.inputSchema,
        readOnly: def.annotations?.readOnlyHint === true,
        async call(args, options) {
          const outcome = toolOutcome(
            await server.callTool(def.name, args, options?.signal ?? new AbortController().signal),
          );
          return {
            content: outcome.content,
            text: outcome.result,
            isError: outcome.isError === true,
            ...(outcome.rawOutput !== undefined ? { structuredContent: outcome.rawOutput } : {}),
          };
        },
      };
      return [tool];
    });
  return {
    status: () => conns.status(),
    tools,
    tool: (server, toolName) => tools().find((t) => t.server === server && t.toolName === toolName),
    close: () => conns.close(),
  };
}

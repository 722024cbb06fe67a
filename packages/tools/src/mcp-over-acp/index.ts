/**
 * MCP over ACP for a proxy component (unstable MCP-over-ACP RFD): inject an MCP server into a
 * `session/new` on its way to the agent and serve it from the proxy itself. The agent reaches it
 * with `mcp/message` requests addressed to the client; the proxy answers the ones naming this
 * server's id and forwards the rest. Wire-level and version-neutral (the `acp` entry and
 * `mcp/message` have the same shape in v1 and v2), so it plugs into any message hook (the
 * conductor's component API, a bridge).
 *
 * @module
 */
import { McpOverAcpServers, type McpOverAcpBackend, type McpServerLike, type McpNotify } from '@acp-kit/client';
import { AcpError, Methods, type McpMessageResponse, type McpServerAcp } from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';

/** What to inject: a name and an MCP server object (one per injection: it is connected once). */
export interface McpInjectionSource {
  name: string;
  server: McpServerLike | McpOverAcpBackend;
}

/** What a proxy sends back to the agent for a request it answers: an `mcp/message` notification. */
export type McpInjectionNotify = (method: 'mcp/message', params: Record<string, unknown>) => void;

/** An injected server: the rewritten params and the handler of its `mcp/message` requests. */
export interface McpInjection<P> {
  /** The `session/new` (or load/resume) params with the server appended to `mcpServers`. */
  readonly params: P;
  readonly declaration: McpServerAcp;
  /**
   * An agent-to-client request: the answer when it is `mcp/message` for this server (the proxy
   * sends it back to the agent and does not forward the request), `undefined` otherwise.
   */
  handleRequest(
    method: string,
    params: unknown,
    options?: { signal?: AbortSignal; notify?: McpInjectionNotify },
  ): Promise<McpMessageResponse> | undefined;
  /** Ends the server (the session or the connection ended). */
  close(): Promise<void>;
}

function isBackend(s: McpServerLike | McpOverAcpBackend): s is McpOverAcpBackend {
  return 'handle' in s && typeof s.handle === 'function';
}

/**
 * Appends `source` as `{ type: "acp", name, serverId }` to `params.mcpServers` and returns the
 * handler of its requests. Inject only when the agent advertised the capability
 * ({@link agentAdvertisesMcpOverAcp} on its `initialize` result); a proxy that bridges for an
 * agent without it is the RFD's other option, not this helper.
 */
export function injectMcpServer<P extends object>(
  params: P,
  source: McpInjectionSource,
): McpInjection<P & { mcpServers: unknown[] }> {
  const registry = new McpOverAcpServers();
  const declaration = isBackend(source.server)
    ? registry.register(source.name, source.server)
    : registry.offer(source.name, source.server);
  const existing = 'mcpServers' in params && Array.isArray(params.mcpServers) ? params.mcpServers : [];
  return {
    params: { ...params, mcpServers: [...existing, declaration] },
    declaration,
    handleRequest(method, raw, options = {}) {
      if (method !== Methods.mcpMessage || !isObj(raw) || raw.serverId !== declaration.serverId) return undefined;
      const { serverId, requestId, method: inner, params: innerParams } = raw;
      if (typeof requestId !== 'string' || typeof inner !== 'string')
        return Promise.reject(AcpError.invalidParams('mcp/message needs string requestId and method'));
      const notify: McpNotify = (m, p) =>
        options.notify?.(Methods.mcpMessage, { serverId, requestId, method: m, ...(p ? { params: p } : {}) });
      const request = { serverId: declaration.serverId, requestId, method: inner };
      const withParams = isObj(innerParams) ? { ...request, params: innerParams } : request;
      return registry.handle(withParams, options.signal ?? new AbortController().signal, notify);
    },
    close: () => registry.close(),
  };
}

/** Whether an agent's `initialize` result (v1 or v2 wire) advertises MCP servers over ACP. */
export function agentAdvertisesMcpOverAcp(result: unknown): boolean {
  if (!isObj(result)) return false;
  const v1 = isObj(result.agentCapabilities) ? result.agentCapabilities.mcpCapabilities : undefined;
  if (isObj(v1) && v1.acp === true) return true;
  const session = isObj(result.capabilities) ? result.capabilities.session : undefined;
  const mcp = isObj(session) ? session.mcp : undefined;
  return isObj(mcp) && isObj(mcp.acp);
}

import { randomUUID } from '@acp-kit/protocol/internal';
import { AcpError, type McpMessageRequest, type McpMessageResponse, type McpServerAcp } from '@acp-kit/protocol';

/**
 * MCP over ACP, the serving side (unstable MCP-over-ACP RFD, 2.4.0 `mcp/message`): MCP servers a
 * client offers an agent over the ACP connection itself. The agent sends one `mcp/message`
 * request per inner MCP request, naming the `serverId` this side made up; the answer carries the
 * inner outcome (`{ result }` or `{ error }`). Binding failures are outer ACP errors with the codes
 * the official SDK uses ({@link McpBindingError}).
 */

/** Outer ACP error codes of the MCP-over-ACP binding (the same as the official SDK's `McpBindingErrorCode`). */
export const McpBindingError = {
  invalidParams: -32602,
  requestCancelled: -32800,
  serverUnavailable: -33001,
  backendFailed: -33002,
} as const;

/** An MCP JSON-RPC message, structurally (the MCP SDK's `JSONRPCMessage`). */
export interface McpJsonRpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * The MCP SDK's `Transport` shape, structurally, so that an `McpServer` of
 * `@modelcontextprotocol/sdk` connects to {@link McpOverAcpServerTransport} without this package
 * depending on the MCP SDK.
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: McpJsonRpcMessage, options?: { relatedRequestId?: string | number }): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: McpJsonRpcMessage) => void;
}

/** An MCP server object: anything with the MCP SDK's `connect(transport)` (its `McpServer` or `Server`). */
export interface McpServerLike {
  connect(transport: McpTransport): Promise<void>;
}

/** Sends an `mcp/message` notification of an active inner request back to the agent. */
export type McpNotify = (method: string, params: Record<string, unknown> | undefined) => void;

/** One server this side serves: answers the inner requests of `mcp/message`. */
export interface McpOverAcpBackend {
  handle(request: McpMessageRequest, signal: AbortSignal, notify: McpNotify): Promise<McpMessageResponse>;
  close(): Promise<void>;
}

interface Active {
  resolve(outcome: McpMessageResponse): void;
  reject(error: unknown): void;
  notify: McpNotify;
}

/**
 * The ACP side of an in-process MCP server: `server.connect(transport)` and each `mcp/message`
 * request becomes one inner JSON-RPC request whose id is the binding's `requestId` (the SDK does
 * the same), answered by the server's response with that id.
 */
export class McpOverAcpServerTransport implements McpTransport, McpOverAcpBackend {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: McpJsonRpcMessage) => void;
  private readonly active = new Map<string, Active>();
  private closed = false;

  async start(): Promise<void> {}

  handle(request: McpMessageRequest, signal: AbortSignal, notify: McpNotify): Promise<McpMessageResponse> {
    if (this.closed) return Promise.reject(unavailable(request.serverId));
    const id = request.requestId;
    if (this.active.has(id))
      return Promise.reject(AcpError.invalidParams(`duplicate active MCP request id ${JSON.stringify(id)}`));
    return new Promise<McpMessageResponse>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.active.delete(id)) return;
        // the server stops working on it; the agent gets the binding's cancellation code
        this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
        reject(new AcpError(McpBindingError.requestCancelled, 'MCP request cancelled'));
      };
      const done = (): void => signal.removeEventListener('abort', onAbort);
      this.active.set(id, {
        resolve: (o) => (done(), resolve(o)),
        reject: (e) => (done(), reject(e)),
        notify,
      });
      signal.addEventListener('abort', onAbort, { once: true });
      const inner: McpJsonRpcMessage = { jsonrpc: '2.0', id, method: request.method };
      if (request.params) inner.params = request.params;
      this.onmessage?.(inner);
    });
  }

  async send(message: McpJsonRpcMessage, options?: { relatedRequestId?: string | number }): Promise<void> {
    if (message.method === undefined) {
      // a response: the outcome of the inner request with that id
      const key = String(message.id);
      const a = this.active.get(key);
      if (!a) return;
      this.active.delete(key);
      a.resolve(message.error ? { error: message.error } : { result: message.result ?? null });
      return;
    }
    const related = options?.relatedRequestId;
    const owner = related === undefined ? undefined : this.active.get(String(related));
    if (message.id === undefined) {
      // the binding carries only notifications of an active request (progress, ...)
      owner?.notify(message.method, message.params);
      return;
    }
    // a request from the server (sampling, roots, ...): the binding has no way back to the agent
    this.onmessage?.({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32601, message: `${message.method} is not available over MCP-over-ACP` },
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, a] of this.active) {
      this.active.delete(id);
      a.reject(new AcpError(McpBindingError.serverUnavailable, 'MCP server closed'));
    }
    this.onclose?.();
  }
}

function unavailable(serverId: string): AcpError {
  return new AcpError(McpBindingError.serverUnavailable, 'MCP server registration unavailable', { serverId });
}

/** A `mcpServers` entry the client serves itself over the connection: an MCP server object. */
export interface OfferedMcpServer {
  type: 'acp';
  name: string;
  server: McpServerLike;
  /**
   * Used when the agent does not advertise MCP over ACP: the same server as a stdio command the
   * agent starts itself. Without it, such an agent is refused (naming the capability).
   */
  fallback?: { command: string; args?: string[]; env?: Array<{ name: string; value: string }> };
}

/** A `mcpServers` entry relayed from a local stdio MCP server process (`--mcp-over-acp <command>`). */
export interface RelayedMcpServer {
  type: 'acp';
  name: string;
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  cwd?: string;
}

/**
 * The servers one connection serves over `mcp/message`, by `serverId`. Ids are random UUIDs made
 * here (the RFD: the providing component makes them up; never reused on the connection).
 */
export class McpOverAcpServers {
  private readonly servers = new Map<string, McpOverAcpBackend>();
  /** An MCP SDK server connects to one transport only: a server object offered again keeps its declaration. */
  private readonly offered = new WeakMap<McpServerLike, McpServerAcp>();

  /** Registers a backend under a fresh id; returns the declaration for `mcpServers`. */
  register(name: string, backend: McpOverAcpBackend): McpServerAcp {
    const serverId = randomUUID();
    this.servers.set(serverId, backend);
    return { type: 'acp', name, serverId };
  }

  /**
   * Connects an MCP server object to a new transport and registers it; the same object offered
   * again on this connection (a second session, a resume) gets the same `serverId`.
   */
  offer(name: string, server: McpServerLike): McpServerAcp {
    const known = this.offered.get(server);
    if (known) return known.name === name ? known : { ...known, name };
    const transport = new McpOverAcpServerTransport();
    const connected = server.connect(transport);
    const backend: McpOverAcpBackend = {
      handle: async (req, signal, notify) => {
        await connected;
        return transport.handle(req, signal, notify);
      },
      close: () => transport.close(),
    };
    const declaration = this.register(name, backend);
    this.offered.set(server, declaration);
    return declaration;
  }

  /** Answers one `mcp/message` request (unknown id: -33001, as the SDK). */
  handle(request: McpMessageRequest, signal: AbortSignal, notify: McpNotify): Promise<McpMessageResponse> {
    const backend = this.servers.get(request.serverId);
    if (!backend) return Promise.reject(unavailable(request.serverId));
    return backend.handle(request, signal, notify);
  }

  get size(): number {
    return this.servers.size;
  }

  /** Closes every server (the connection ended). */
  async close(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.allSettled(all.map((b) => b.close()));
  }
}

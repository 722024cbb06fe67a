import { randomUUID } from '@acp-kit/protocol/internal';
import type { McpMessageNotification, McpMessageRequest, McpMessageResponse } from '@acp-kit/protocol';

/** A notification of an active inner MCP request (progress, ...), as the serving side sent it. */
export interface McpOverAcpNotification {
  method: string;
  params?: Record<string, unknown> | null;
}

/** Options of one {@link McpOverAcpChannel.request}. */
export interface McpOverAcpRequestOptions {
  /** The inner request id (default: a fresh UUID); never reuse one still active for the server. */
  requestId?: string;
  /** Aborting sends `$/cancel_request` for the outer `mcp/message` request. */
  signal?: AbortSignal;
  /** The serving side's notifications of this request (dropped once it settled). */
  onNotification?: (notification: McpOverAcpNotification) => void;
}

/**
 * The agent's way to the MCP servers its client declared with `type: "acp"` (unstable
 * MCP-over-ACP RFD): one `mcp/message` request per inner MCP request; resolves with the inner
 * outcome (`{ result }` or `{ error }`), rejects with an `AcpError` on a binding failure.
 */
export interface McpOverAcpChannel {
  request(
    serverId: string,
    method: string,
    params?: Record<string, unknown> | null,
    options?: McpOverAcpRequestOptions,
  ): Promise<McpMessageResponse>;
}

/** Sends one `mcp/message` request to the client in the connection's wire format. */
export type McpMessageSender = (params: McpMessageRequest, signal?: AbortSignal) => Promise<McpMessageResponse>;

/**
 * One connection's channel: sends the requests and routes the client's `mcp/message`
 * notifications to the request they belong to, by `(serverId, requestId)`.
 */
export class McpOverAcpRoutes implements McpOverAcpChannel {
  /** Listeners of the requests running; only while one runs (most connections never use MCP over ACP). */
  private listeners: Map<string, (n: McpOverAcpNotification) => void> | undefined;

  constructor(private readonly send: McpMessageSender) {}

  async request(
    serverId: string,
    method: string,
    params?: Record<string, unknown> | null,
    options: McpOverAcpRequestOptions = {},
  ): Promise<McpMessageResponse> {
    const requestId = options.requestId ?? randomUUID();
    const key = JSON.stringify([serverId, requestId]);
    const listeners = (this.listeners ??= new Map<string, (n: McpOverAcpNotification) => void>());
    if (listeners.has(key)) throw new Error(`MCP request ${requestId} is already active for server ${serverId}`);
    listeners.set(key, options.onNotification ?? (() => undefined));
    try {
      const req: McpMessageRequest = { serverId, requestId, method };
      if (params) req.params = params;
      return await this.send(req, options.signal);
    } finally {
      listeners.delete(key);
      if (listeners.size === 0 && this.listeners === listeners) this.listeners = undefined;
    }
  }

  /** A `mcp/message` notification from the client: to its request's listener, or dropped. */
  deliver(n: McpMessageNotification): void {
    const listener = this.listeners?.get(JSON.stringify([n.serverId, n.requestId]));
    if (!listener) return;
    listener({ method: n.method, ...(n.params ? { params: n.params } : {}) });
  }
}

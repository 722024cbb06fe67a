import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpOverAcpChannel } from '@acp-kit/agent';
import { AcpError, type McpServer } from '@acp-kit/protocol';
import { isObj, randomUUID } from '@acp-kit/protocol/internal';

/**
 * The MCP revision the MCP-over-ACP binding names in each request's inner `_meta` (the official
 * SDK's provider refuses a request without it).
 */
export const MCP_OVER_ACP_VERSION = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';

/**
 * An MCP client transport whose messages travel as `mcp/message` requests over the agent's ACP
 * connection to the component that declared the server (`type: "acp"`, unstable MCP-over-ACP).
 * Each inner request is one outer request (its `requestId` derived from the MCP id, unique on
 * the connection); `notifications/cancelled` cancels the outer request; the serving side's
 * notifications of a request come back as MCP notifications.
 */
export class AcpMcpClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly prefix = randomUUID();
  private readonly inFlight = new Map<string, AbortController>();
  private closed = false;

  constructor(
    private readonly channel: McpOverAcpChannel,
    private readonly server: { name: string; serverId: string },
    private readonly clientInfo: { name: string; version: string },
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the MCP-over-ACP transport is closed');
    if ('method' in message && 'id' in message) {
      void this.forward(message);
      return;
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = message.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.inFlight.get(String(id))?.abort();
    }
    // other client notifications (`notifications/initialized`, ...) have no place in the binding
  }

  private async forward(req: JSONRPCRequest): Promise<void> {
    const abort = new AbortController();
    this.inFlight.set(String(req.id), abort);
    try {
      const outcome = await this.channel.request(this.server.serverId, req.method, this.withMeta(req.params), {
        requestId: `${this.prefix}:${req.id}`,
        signal: abort.signal,
        onNotification: (n) =>
          this.deliver({ jsonrpc: '2.0', method: n.method, ...(n.params ? { params: n.params } : {}) }),
      });
      if ('result' in outcome) {
        const result = isObj(outcome.result) ? outcome.result : {};
        this.deliver({ jsonrpc: '2.0', id: req.id, result });
      } else if (req.method === 'initialize') {
        // a provider of the stateless revision (the official SDK's) has no handshake: the
        // connection is its declaration, so answer the client's handshake here
        this.deliver({ jsonrpc: '2.0', id: req.id, result: this.localInitialize(req) });
      } else {
        const { code, message, data } = outcome.error;
        this.deliver({ jsonrpc: '2.0', id: req.id, error: { code, message, ...(data === undefined ? {} : { data }) } });
      }
    } catch (e) {
      const err = AcpError.from(e);
      this.deliver({ jsonrpc: '2.0', id: req.id, error: { code: err.code, message: err.message } });
    } finally {
      this.inFlight.delete(String(req.id));
    }
  }

  private withMeta(params: JSONRPCRequest['params']): Record<string, unknown> {
    const base: Record<string, unknown> = { ...(params ?? {}) };
    const meta: Record<string, unknown> = isObj(base._meta) ? { ...base._meta } : {};
    meta[META_VERSION] ??= MCP_OVER_ACP_VERSION;
    meta[META_CAPABILITIES] ??= {};
    meta[META_CLIENT_INFO] ??= this.clientInfo;
    base._meta = meta;
    return base;
  }

  private localInitialize(req: JSONRPCRequest): Record<string, unknown> {
    const requested = req.params?.protocolVersion;
    return {
      protocolVersion: typeof requested === 'string' ? requested : '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: this.server.name, version: 'mcp-over-acp' },
    };
  }

  private deliver(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.inFlight.values()) a.abort();
    this.inFlight.clear();
    this.onclose?.();
  }
}

/** The transport of a `type: "acp"` server entry; throws when the session has no MCP-over-ACP channel. */
export function createAcpMcpTransport(
  config: McpServer,
  channel: McpOverAcpChannel | undefined,
  clientInfo: { name: string; version: string },
): AcpMcpClientTransport {
  const serverId = 'serverId' in config ? config.serverId : undefined;
  if (typeof serverId !== 'string' || serverId === '') throw new Error('the acp server has no serverId');
  if (!channel) throw new Error('this session has no MCP-over-ACP channel to the client');
  return new AcpMcpClientTransport(channel, { name: config.name, serverId }, clientInfo);
}

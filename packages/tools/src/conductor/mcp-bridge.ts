import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Methods } from '@acp-kit/protocol';
import { isObj, randomUUID } from '@acp-kit/protocol/internal';
import { agentAdvertisesMcpOverAcp } from '../mcp-over-acp/index.js';

/**
 * The stdio shim the agent starts in place of an `acp` MCP server (MCP-over-ACP RFD, "Bridging for
 * agents without native support", the stdio shim): it only joins its stdin/stdout to the
 * conductor's socket named in argv, so it needs no file of its own (`node -e`).
 */
const SHIM =
  "const s=require('node:net').connect(process.argv[1]);process.stdin.pipe(s);s.pipe(process.stdout);" +
  "s.on('close',()=>process.exit(0));s.on('error',()=>process.exit(1));";

/** The MCP metadata each inner request of the binding carries (the official SDK's provider refuses one without it). */
const MCP_OVER_ACP_VERSION = '2026-07-28';
const SESSION_SETUP = new Set<string>([
  Methods.sessionNew,
  Methods.sessionLoad,
  Methods.sessionResume,
  Methods.sessionFork,
]);

/** Sends one `mcp/message` request towards the editor (the component that declared the server) and resolves with its answer. */
export type SendMcpMessage = (params: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

type Json = Record<string, unknown>;

/**
 * The initialize answer as the conductor hands it on: `mcp.acp` advertised (Proxy Chains RFD, "MCP-over-ACP
 * support": "The conductor always advertises `mcpCapabilities.acp: true` to proxies and handles bridging for
 * agents that don't support native ACP transport"). `bridge` says whether the agent lacks it (the conductor
 * bridges); a v2 agent without sessions, or without stdio servers to bridge to, is left as it answered.
 */
export function advertiseMcpOverAcp(version: 1 | 2, result: unknown): { result: unknown; bridge: boolean } {
  if (!isObj(result) || agentAdvertisesMcpOverAcp(result)) return { result, bridge: false };
  if (version === 1) {
    const caps = isObj(result.agentCapabilities) ? result.agentCapabilities : {};
    const mcp = isObj(caps.mcpCapabilities) ? caps.mcpCapabilities : {};
    const agentCapabilities = { ...caps, mcpCapabilities: { ...mcp, acp: true } };
    return { result: { ...result, agentCapabilities }, bridge: true };
  }
  const caps = isObj(result.capabilities) ? result.capabilities : {};
  const session = isObj(caps.session) ? caps.session : undefined;
  const mcp = session && isObj(session.mcp) ? session.mcp : undefined;
  if (!session || !mcp || !isObj(mcp.stdio)) return { result, bridge: false };
  const capabilities = { ...caps, session: { ...session, mcp: { ...mcp, acp: {} } } };
  return { result: { ...result, capabilities }, bridge: true };
}

/**
 * The conductor's MCP-over-ACP bridge for an agent without the capability: each `acp` entry of a
 * session setup is rewritten to a stdio server (the shim), whose socket the conductor serves. The
 * agent's MCP requests become `mcp/message` requests towards the editor; answers come back as MCP
 * responses; `mcp/message` notifications of a request go to that request's shim connection.
 */
export class McpBridge {
  private dir: string | undefined;
  private readonly servers = new Map<string, { server: Server; path: string }>();
  /** `requestId` of an `mcp/message` in flight -> the shim connection and the inner request's id. */
  private readonly inFlight = new Map<string, { socket: Socket; abort: AbortController }>();
  private readonly prefix = randomUUID();
  private seq = 0;

  constructor(
    private readonly version: 1 | 2,
    private readonly send: SendMcpMessage,
  ) {}

  /** `params` of a session setup with every `acp` entry of `mcpServers` turned into a stdio shim. */
  rewrite(method: string, params: unknown): unknown {
    if (!SESSION_SETUP.has(method) || !isObj(params) || !Array.isArray(params.mcpServers)) return params;
    const mcpServers: unknown[] = params.mcpServers.map((entry: unknown) => this.rewriteEntry(entry));
    return { ...params, mcpServers };
  }

  private rewriteEntry(entry: unknown): unknown {
    if (!isObj(entry) || entry.type !== 'acp' || typeof entry.serverId !== 'string') return entry;
    const name = typeof entry.name === 'string' ? entry.name : entry.serverId;
    const path = this.listen(entry.serverId, name);
    const stdio = { name, command: process.execPath, args: ['-e', SHIM, path], env: [] };
    return this.version === 2 ? { type: 'stdio', ...stdio } : stdio;
  }

  /** A `mcp/message` notification on its way to the agent: true when it belongs to a bridged request (then delivered here). */
  takeNotification(params: unknown): boolean {
    if (!isObj(params) || typeof params.requestId !== 'string' || typeof params.method !== 'string') return false;
    const open = this.inFlight.get(params.requestId);
    if (!open) return false;
    const note = isObj(params.params) ? { method: params.method, params: params.params } : { method: params.method };
    write(open.socket, { jsonrpc: '2.0', ...note });
    return true;
  }

  private listen(serverId: string, name: string): string {
    const known = this.servers.get(serverId);
    if (known) return known.path;
    this.dir ??= mkdtempSync(join(tmpdir(), 'acp-kit-mcp-'));
    const path = join(this.dir, `${this.servers.size}.sock`);
    const server = createServer((socket) => this.serve(socket, serverId, name));
    server.listen(path);
    this.servers.set(serverId, { server, path });
    return path;
  }

  /** One shim connection: newline-delimited MCP JSON-RPC, as the agent's MCP client writes it. */
  private serve(socket: Socket, serverId: string, name: string): void {
    socket.on('error', () => undefined);
    const mine = new Set<string>();
    socket.on('close', () => {
      for (const id of mine) this.inFlight.get(id)?.abort.abort();
    });
    createInterface({ input: socket }).on('line', (line) => {
      let m: unknown;
      try {
        m = JSON.parse(line);
      } catch {
        return; // not MCP: nothing to answer
      }
      if (!isObj(m) || typeof m.method !== 'string') return; // an answer: the bridge asks the agent nothing
      if ('id' in m) void this.relay(socket, mine, { serverId, name }, m);
      else if (m.method === 'notifications/cancelled' && isObj(m.params)) this.cancel(mine, m.params.requestId);
    });
  }

  private cancel(mine: Set<string>, innerId: unknown): void {
    for (const id of mine) if (id.endsWith(`:${JSON.stringify(innerId)}`)) this.inFlight.get(id)?.abort.abort();
  }

  private async relay(socket: Socket, mine: Set<string>, server: { serverId: string; name: string }, m: Json) {
    const requestId = `${this.prefix}:${this.seq++}:${JSON.stringify(m.id)}`;
    const abort = new AbortController();
    mine.add(requestId);
    this.inFlight.set(requestId, { socket, abort });
    const params = { serverId: server.serverId, requestId, method: m.method, params: withMeta(m.params) };
    try {
      const outcome = await this.send(params, abort.signal);
      if (isObj(outcome) && 'result' in outcome) write(socket, { jsonrpc: '2.0', id: m.id, result: outcome.result });
      else if (m.method === 'initialize')
        write(socket, { jsonrpc: '2.0', id: m.id, result: handshake(m, server.name) });
      else write(socket, { jsonrpc: '2.0', id: m.id, error: innerError(outcome) });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const code = isObj(e) && typeof e.code === 'number' ? e.code : -32603;
      write(socket, { jsonrpc: '2.0', id: m.id, error: { code, message } });
    } finally {
      mine.delete(requestId);
      this.inFlight.delete(requestId);
    }
  }

  close(): void {
    for (const { abort } of this.inFlight.values()) abort.abort();
    for (const { server } of this.servers.values()) server.close();
    this.servers.clear();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

function write(socket: Socket, m: Json): void {
  if (!socket.destroyed) socket.write(JSON.stringify(m) + '\n');
}

function withMeta(params: unknown): Json {
  const base: Json = isObj(params) ? { ...params } : {};
  const meta: Json = isObj(base._meta) ? { ...base._meta } : {};
  meta['io.modelcontextprotocol/protocolVersion'] ??= MCP_OVER_ACP_VERSION;
  meta['io.modelcontextprotocol/clientCapabilities'] ??= {};
  meta['io.modelcontextprotocol/clientInfo'] ??= { name: 'acp-kit-conductor', version: 'mcp-bridge' };
  base._meta = meta;
  return base;
}

/**
 * The answer to the agent's MCP `initialize` when the serving side has no handshake (a provider of
 * the binding's stateless revision answers it with an inner error): the declaration is the
 * connection, so the bridge answers it, as the built-in agent's ACP transport does.
 */
function handshake(m: Json, name: string): Json {
  const requested = isObj(m.params) ? m.params.protocolVersion : undefined;
  return {
    protocolVersion: typeof requested === 'string' ? requested : '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name, version: 'mcp-over-acp' },
  };
}

function innerError(outcome: unknown): Json {
  const e = isObj(outcome) && isObj(outcome.error) ? outcome.error : undefined;
  const code = e && typeof e.code === 'number' ? e.code : -32603;
  const message = e && typeof e.message === 'string' ? e.message : 'the MCP server gave no result';
  return e && 'data' in e ? { code, message, data: e.data } : { code, message };
}

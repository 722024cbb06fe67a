import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CompatibilityCallToolResult,
  GetPromptResult,
  Prompt as McpPromptDefinition,
  ReadResourceResult,
  Resource,
  Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@acp-kit/protocol';
import type { McpOverAcpChannel } from '@acp-kit/agent';
import { abortError } from '../model.js';
import type { Tool } from '../tool.js';
import { createMcpTool, type McpToolCaller } from './mcp-tool.js';
import { createResourceTools, type McpResourceReader } from './mcp-resources.js';
import { mcpToolName, uniqueToolName } from './tool-name.js';
import { packageVersion } from '@acp-kit/protocol/internal';

/**
 * Default time a server gets to start, answer `initialize` and list its tools (ms). Generous: an
 * `npx` server's first start, or any node server on a busy 2-core machine, can take well over 10 s.
 */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;
/** Default time one `tools/call` may take without a progress notification (ms). */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 10 * 60_000;

/** Options of {@link McpConnections.open}. */
export interface McpConnectOptions {
  /** Working directory of stdio servers (the session's project root). */
  cwd: string;
  /** Per-server limit for start + `initialize` + `tools/list` (default {@link DEFAULT_MCP_CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
  /** Per-call limit, reset by progress notifications (default {@link DEFAULT_MCP_CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** Diagnostics (failures, server stderr lines); default: the agent's stderr. */
  log?: (line: string) => void;
  /** `clientInfo` sent to the servers. */
  clientInfo?: { name: string; version: string };
  /** The way to the client's `type: "acp"` servers (MCP over ACP): the session's `mcpOverAcp`. */
  mcpOverAcp?: McpOverAcpChannel;
}

/** What the agent knows about one configured server. */
export interface McpServerStatus {
  name: string;
  /** `stdio`, `http`, ... as configured. */
  transport: string;
  /** `connected`; `failed` (never came up); `closed` (went away, or the session ended). */
  state: 'connected' | 'failed' | 'closed';
  /** Why it failed or closed unexpectedly. */
  error?: string;
  /** Tools it offers (0 unless it connected). */
  toolCount: number;
  /** Prompts it offers (0 unless it connected and advertised `prompts`). */
  promptCount: number;
  /** Process id of a stdio server while it runs. */
  pid?: number;
}

/** One entry of {@link McpConnections.toolEntries}: a server's tool, or its two resource tools. */
export type McpToolEntry =
  | { kind: 'tool'; name: string; def: McpToolDefinition; server: McpToolCaller }
  | { kind: 'resources'; list: string; read: string; server: McpResourceReader };

/** What a prompt of a connected server needs from its connection. */
export interface McpPromptSource {
  readonly serverName: string;
  /** `prompts/get` with the prompt's string arguments. */
  getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult>;
}

const defaultLog = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

// ---- last-resort cleanup: stdio servers die with the agent process even if nobody closed them ----
const livePids = new Set<number>();
let exitHookInstalled = false;
function trackPid(pid: number): void {
  livePids.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of livePids) {
      try {
        process.kill(p, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  });
}

/**
 * The MCP servers of one session (ACP-V1-SESS-01, ACP-ALL-SESS-08): connects to every listed
 * server in parallel, each within a time limit; a server that cannot be reached is recorded as
 * `failed` (never fatal). Exposes the connected servers' tools as coding-agent {@link Tool}s and
 * closes every connection (stdio server processes end) on {@link close}.
 */
export class McpConnections {
  private cachedTools: Tool[] | undefined;
  private closed = false;

  private constructor(private readonly servers: ServerConnection[]) {
    for (const s of servers) s.onToolsChanged = () => (this.cachedTools = undefined);
  }

  /** Connects to `servers` (all at once); resolves when each is connected or has failed. */
  static async open(servers: readonly McpServer[], options: McpConnectOptions): Promise<McpConnections> {
    const conns = servers.map((s) => new ServerConnection(s, options));
    await Promise.all(conns.map((c) => c.connect()));
    return new McpConnections(conns);
  }

  /** Status of every configured server, in the configured order. */
  status(): McpServerStatus[] {
    return this.servers.map((s) => s.status());
  }

  /** Servers that could not be connected. */
  failures(): McpServerStatus[] {
    return this.status().filter((s) => s.state === 'failed');
  }

  /**
   * The tools of the servers that came up, named `mcp__<server>__<tool>` (unique; `_2`, `_3`...
   * on collisions after sanitizing), plus `mcp__<server>__list_resources` / `__read_resource` for
   * servers that advertise resources. Tools of a server that went away stay listed and fail with
   * a message saying so, so the model learns why.
   */
  tools(): Tool[] {
    if (this.closed) return [];
    if (this.cachedTools) return this.cachedTools;
    const out: Tool[] = [];
    for (const e of this.toolEntries()) {
      if (e.kind === 'tool') out.push(createMcpTool(e.name, e.def, e.server));
      else out.push(...createResourceTools({ list: e.list, read: e.read }, e.server));
    }
    return (this.cachedTools = out);
  }

  /**
   * The servers' tools with their unique session-wide names, before they become coding-agent
   * tools: the one naming rule for the built-in agent and {@link connectMcpServers}' callers.
   */
  toolEntries(): McpToolEntry[] {
    if (this.closed) return [];
    const taken = new Set<string>();
    const take = (server: string, tool: string): string => {
      const name = uniqueToolName(mcpToolName(server, tool), taken);
      taken.add(name);
      return name;
    };
    const out: McpToolEntry[] = [];
    for (const s of this.servers) {
      for (const def of s.toolDefinitions) out.push({ kind: 'tool', name: take(s.name, def.name), def, server: s });
      if (!s.hasResources) continue;
      // after the server's own tools, so that a tool of its own named list_resources keeps its name
      const list = take(s.name, 'list_resources');
      out.push({ kind: 'resources', list, read: take(s.name, 'read_resource'), server: s });
    }
    return out;
  }

  /** The prompts of the servers that came up, in the configured order (empty once closed). */
  prompts(): Array<{ server: McpPromptSource; def: McpPromptDefinition }> {
    if (this.closed) return [];
    return this.servers.flatMap((s) => s.promptDefinitions.map((def) => ({ server: s, def })));
  }

  /** Called after a server changed its prompt list (`notifications/prompts/list_changed`). */
  set onPromptsChanged(listener: (() => void) | undefined) {
    for (const s of this.servers) s.onPromptsChanged = listener;
  }

  /** Closes every connection; stdio servers get EOF, then SIGTERM, then SIGKILL (SDK behaviour). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

function parseUrl(raw: unknown): URL {
  try {
    return new URL(String(raw));
  } catch {
    throw new Error(`invalid url ${JSON.stringify(raw)}`);
  }
}

/** One configured server and its MCP client. */
class ServerConnection implements McpToolCaller, McpResourceReader, McpPromptSource {
  readonly name: string;
  readonly transportType: string;
  toolDefinitions: McpToolDefinition[] = [];
  /** The server advertised `resources` at initialize. */
  hasResources = false;
  onToolsChanged: (() => void) | undefined;
  /** The prompts it offers (listed at connect, refreshed on `list_changed`). */
  promptDefinitions: McpPromptDefinition[] = [];
  onPromptsChanged: (() => void) | undefined;
  private state: McpServerStatus['state'] = 'failed';
  private error: string | undefined;
  private client: Client | undefined;
  private pid: number | undefined;
  private stderrTail = '';
  private closing = false;
  private readonly log: (line: string) => void;

  constructor(
    private readonly config: McpServer,
    private readonly options: McpConnectOptions,
  ) {
    this.name = config.name;
    // (a JavaScript caller's server may lack `type`: stdio, the v1 default)
    this.transportType = config.type ?? 'stdio';
    this.log = options.log ?? defaultLog;
  }

  get serverName(): string {
    return this.name;
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      transport: this.transportType,
      state: this.state,
      ...(this.error !== undefined ? { error: this.error } : {}),
      toolCount: this.toolDefinitions.length,
      promptCount: this.promptDefinitions.length,
      ...(this.pid !== undefined && this.state === 'connected' ? { pid: this.pid } : {}),
    };
  }

  /** Never rejects: a failure is recorded in the status and logged. */
  async connect(): Promise<void> {
    const timeoutMs = this.options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    let client: Client | undefined;
    try {
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const transport = await this.createTransport();
      client = new Client(this.options.clientInfo ?? { name: 'acp-kit-coding-agent', version: packageVersion() }, {
        capabilities: {},
        listChanged: {
          tools: {
            onChanged: (err, tools) => {
              if (err) this.log(`MCP server "${this.name}": refreshing its tools failed: ${err.message}`);
              else if (tools) this.setTools(tools);
            },
          },
          prompts: {
            onChanged: (err, prompts) => {
              if (err) this.log(`MCP server "${this.name}": refreshing its prompts failed: ${err.message}`);
              else if (prompts && this.state === 'connected') {
                this.promptDefinitions = prompts;
                this.onPromptsChanged?.();
              }
            },
          },
        },
      });
      client.onerror = (e) => {
        // failures while connecting are reported once, by the catch below
        if (!this.closing && this.state === 'connected') this.log(`MCP server "${this.name}": ${e.message}`);
      };
      client.onclose = () => {
        if (this.closing || this.state !== 'connected') return;
        this.state = 'closed';
        this.error = `the server went away${this.stderrSuffix()}`;
        this.log(`MCP server "${this.name}": ${this.error}`);
        this.forgetPid();
      };
      this.client = client;
      await client.connect(transport, { signal: deadline.signal, timeout: timeoutMs });
      const p = 'pid' in transport ? transport.pid : undefined;
      if (typeof p === 'number') {
        this.pid = p;
        trackPid(p);
      }
      this.hasResources = !!client.getServerCapabilities()?.resources;
      this.setTools(await this.listAllTools(client, deadline.signal, timeoutMs));
      this.promptDefinitions = await this.listAllPrompts(client, deadline.signal, timeoutMs);
      if (this.closing) throw new Error('the session closed while connecting');
      this.state = 'connected';
    } catch (e) {
      const why = deadline.signal.aborted
        ? `no answer within ${timeoutMs} ms`
        : e instanceof Error
          ? e.message
          : String(e);
      this.state = 'failed';
      this.error = `${why}${this.stderrSuffix()}`;
      this.toolDefinitions = [];
      this.promptDefinitions = [];
      this.log(`MCP server "${this.name}" (${this.transportType}) failed to start: ${this.error}`);
      // kill what was started; don't hold the session setup for the transport's grace periods
      void this.shutdown();
    } finally {
      clearTimeout(timer);
    }
  }

  private setTools(tools: McpToolDefinition[]): void {
    this.toolDefinitions = tools;
    this.onToolsChanged?.();
  }

  private async listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<McpToolDefinition[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const all: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout });
      all.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  private async listAllPrompts(client: Client, signal: AbortSignal, timeout: number): Promise<McpPromptDefinition[]> {
    if (!client.getServerCapabilities()?.prompts) return [];
    const all: McpPromptDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, { signal, timeout });
      all.push(...page.prompts);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
    const client = this.connected(signal ?? new AbortController().signal);
    const timeout = this.options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    return client.getPrompt({ name, arguments: args }, { ...(signal ? { signal } : {}), timeout });
  }

  private async createTransport(): Promise<Transport> {
    const c: Record<string, unknown> = { ...this.config };
    if (this.transportType === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      if (typeof c.command !== 'string' || c.command === '') throw new Error('the stdio server has no command');
      const env: Record<string, string> = {};
      for (const v of Array.isArray(c.env) ? c.env : []) env[v.name] = v.value;
      const t = new StdioClientTransport({
        command: c.command,
        args: Array.isArray(c.args) ? c.args.map(String) : [],
        env,
        cwd: this.options.cwd,
        stderr: 'pipe',
      });
      this.forwardStderr(t.stderr);
      return t;
    }
    if (this.transportType === 'http' || this.transportType === 'sse') {
      const url = parseUrl(c.url);
      const headers: Record<string, string> = {};
      for (const h of Array.isArray(c.headers) ? c.headers : []) headers[h.name] = h.value;
      if (this.transportType === 'sse') {
        // v1 only (v2 dropped SSE); the SDK sends requestInit's headers on the GET stream and each POST
        const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
        return new SSEClientTransport(url, { requestInit: { headers } });
      }
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    }
    if (this.transportType === 'acp') {
      const { createAcpMcpTransport } = await import('./acp-transport.js');
      const info = this.options.clientInfo ?? { name: 'acp-kit-coding-agent', version: packageVersion() };
      return createAcpMcpTransport(this.config, this.options.mcpOverAcp, info);
    }
    throw new Error(`MCP transport ${JSON.stringify(this.transportType)} is not supported by this agent`);
  }

  /** Server stderr goes to the agent's log line by line; the tail explains a failed start. */
  private forwardStderr(stream: NodeJS.ReadableStream | import('node:stream').Stream | null): void {
    if (!stream || !('on' in stream)) return;
    let partial = '';
    stream.on('data', (chunk: Buffer | string) => {
      const text = chunk.toString();
      this.stderrTail = (this.stderrTail + text).slice(-2000);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) this.log(`[mcp ${this.name}] ${l}`);
    });
  }

  private stderrSuffix(): string {
    const tail = this.stderrTail.trim();
    if (!tail) return '';
    const last = tail.split('\n').slice(-5).join('\n');
    return ` (stderr: ${last})`;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CompatibilityCallToolResult> {
    if (signal.aborted) throw abortError(signal);
    if (this.state !== 'connected' || !this.client) {
      throw new Error(`MCP server "${this.name}" is not connected${this.error ? `: ${this.error}` : ''}`);
    }
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        // a progress token lets long calls keep their time limit alive
        onprogress: () => undefined,
      });
      return result;
    } catch (e) {
      if (signal.aborted) throw abortError(signal);
      throw e;
    }
  }

  private connected(signal: AbortSignal): Client {
    if (signal.aborted) throw abortError(signal);
    if (this.state !== 'connected' || !this.client)
      throw new Error(`MCP server "${this.name}" is not connected${this.error ? `: ${this.error}` : ''}`);
    return this.client;
  }

  async listResources(signal: AbortSignal): Promise<Resource[]> {
    const client = this.connected(signal);
    const timeout = this.options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    const all: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined, { signal, timeout });
      all.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  async readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const client = this.connected(signal);
    return client.readResource({ uri }, { signal, timeout: this.options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS });
  }

  private forgetPid(): void {
    if (this.pid !== undefined) livePids.delete(this.pid);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.state === 'connected') this.state = 'closed';
    await this.shutdown();
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    this.closing = true;
    try {
      const t = client.transport;
      // streamable HTTP: tell the server the session is over (best effort, bounded)
      if (this.transportType === 'http' && t && 'terminateSession' in t && typeof t.terminateSession === 'function') {
        const ended: Promise<unknown> = Promise.resolve(t.terminateSession.call(t));
        await Promise.race([ended.catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
      }
      await client.close();
    } catch (e) {
      this.log(`MCP server "${this.name}": closing failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.forgetPid();
    }
  }
}

import { AcpError, type McpMessageRequest, type McpMessageResponse } from '@acp-kit/protocol';
import { isObj, packageVersion } from '@acp-kit/protocol/internal';
import { spawnAgent, type AgentProcess } from '@acp-kit/protocol/rpc';
import { McpBindingError, type McpOverAcpBackend, type McpNotify, type RelayedMcpServer } from './mcp-over-acp.js';

/** The MCP revision the relay asks a stdio server for (what MCP SDK 1.x servers speak). */
const RELAY_MCP_VERSION = '2025-06-18';

interface Pending {
  resolve(outcome: McpMessageResponse): void;
  reject(e: unknown): void;
  progressToken: unknown;
  notify: McpNotify | undefined;
}

/**
 * Serves `mcp/message` from a local stdio MCP server process (`run --mcp-over-acp <command>`):
 * the client, not the agent, starts the server, so an agent that can reach no process of the
 * user's machine (a remote one) still gets its tools. The relay holds the one MCP session with the
 * process: it runs `initialize` itself and answers the agent's `initialize` from it.
 */
export class McpStdioRelay implements McpOverAcpBackend {
  private readonly proc: AgentProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: string | undefined;
  private readonly initialized: Promise<unknown>;

  constructor(spec: RelayedMcpServer) {
    const env = { ...process.env };
    for (const v of spec.env ?? []) env[v.name] = v.value;
    this.proc = spawnAgent(spec.command, spec.args ?? [], { cwd: spec.cwd, env });
    this.proc.transport.start({
      onMessage: (m) => this.onMessage(m),
      onInvalidLine: () => undefined,
      onClose: (info) => this.fail(`the MCP server process ended (${info.reason})${tail(info.stderrTail)}`),
    });
    this.initialized = this.call('initialize', {
      protocolVersion: RELAY_MCP_VERSION,
      capabilities: {},
      clientInfo: { name: 'acp-kit-mcp-over-acp-relay', version: packageVersion() },
    }).then((outcome) => {
      if ('error' in outcome) throw new Error(`the MCP server refused initialize: ${outcome.error.message}`);
      this.proc.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return outcome.result;
    });
    // a failed start is reported to each request; never an unhandled rejection
    this.initialized.catch(() => undefined);
  }

  /** The process id of the server (tests and diagnostics). */
  get pid(): number | undefined {
    return this.proc.process.pid;
  }

  async handle(request: McpMessageRequest, signal: AbortSignal, notify: McpNotify): Promise<McpMessageResponse> {
    let init: unknown;
    try {
      init = await this.initialized;
    } catch (e) {
      throw new AcpError(McpBindingError.backendFailed, e instanceof Error ? e.message : String(e));
    }
    // the relay's own session answers the agent's handshake (one MCP session per process)
    if (request.method === 'initialize') return { result: init };
    return this.call(request.method, request.params ?? undefined, signal, notify);
  }

  private call(
    method: string,
    params: Record<string, unknown> | undefined,
    signal?: AbortSignal,
    notify?: McpNotify,
  ): Promise<McpMessageResponse> {
    if (this.closed !== undefined) return Promise.reject(new AcpError(McpBindingError.backendFailed, this.closed));
    const id = this.nextId++;
    const meta = params?._meta;
    const progressToken = meta && typeof meta === 'object' && 'progressToken' in meta ? meta.progressToken : undefined;
    return new Promise<McpMessageResponse>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.pending.delete(id)) return;
        this.proc.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
        reject(new AcpError(McpBindingError.requestCancelled, 'MCP request cancelled'));
      };
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (o) => (done(), resolve(o)),
        reject: (e) => (done(), reject(e)),
        progressToken,
        notify,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.proc.transport.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    });
  }

  private onMessage(m: unknown): void {
    if (!isObj(m)) return;
    const msg = m;
    if (typeof msg.method === 'string') {
      if (msg.id !== undefined) {
        // the server asks something (sampling, roots): nobody to ask over the binding
        this.proc.transport.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
        return;
      }
      this.routeNotification(msg.method, msg.params);
      return;
    }
    if (typeof msg.id !== 'number') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    const err = msg.error;
    if (isObj(err) && 'code' in err && 'message' in err) {
      const { code, message, ...rest } = err;
      p.resolve({ error: { ...rest, code: Number(code), message: String(message) } });
    } else p.resolve({ result: msg.result ?? null });
  }

  /** Progress notifications name the request by its progress token; others have no request to go with. */
  private routeNotification(method: string, params: unknown): void {
    if (!isObj(params) || !('progressToken' in params)) return;
    for (const p of this.pending.values()) {
      if (p.progressToken !== undefined && p.progressToken === params.progressToken) {
        p.notify?.(method, { ...params });
        return;
      }
    }
  }

  private fail(reason: string): void {
    this.closed ??= reason;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new AcpError(McpBindingError.backendFailed, reason));
    }
  }

  async close(): Promise<void> {
    this.fail('the MCP server was closed');
    await this.proc.kill();
  }
}

function tail(stderr: string | undefined): string {
  const t = stderr?.trim();
  return t ? `: ${t.split('\n').slice(-3).join(' | ')}` : '';
}

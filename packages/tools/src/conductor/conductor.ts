import {
  JsonRpcPeer,
  plainJson,
  stdioTransport,
  type MemoryTransportOptions,
  type RequestContext,
  type Transport,
} from '@acp-kit/protocol/rpc';
import { ProxyMethods } from '@acp-kit/protocol';
import { readSuccessor } from './successor.js';
import { nodeName, TraceWriter } from './trace.js';
import { HopTracer } from './hop-tracer.js';
import { negotiateChainVersion } from './version.js';
import { advertiseMcpOverAcp, McpBridge } from './mcp-bridge.js';
import {
  notificationLine,
  notificationMessage,
  passNotification,
  successorLine,
  successorMessage,
  unwrapSuccessor,
  type PassNotification,
} from './pass-through.js';
import { inProcessLink, isInProcess, spawnLink, type ChainCommand, type ChainComponent, type Link } from './links.js';

export interface ConductorOptions {
  /**
   * The proxy components, client side first; each gets `proxy/initialize` (may be empty). A
   * {@link ChainCommand} is spawned; an {@link InProcessComponent} runs in the conductor's process.
   */
  components: readonly ChainComponent[];
  /** The terminal agent; it gets `initialize`. */
  agent: ChainCommand;
  /** Write a trace in the Rust conductor's `.jsons` format to this file. */
  trace?: string;
  /** The editor's side (default: this process's stdin / stdout). */
  client?: Transport;
  /** Each program's stderr text, with its trace name (default: copied to this process's stderr). */
  onStderr?: (node: string, text: string) => void;
  /** The conductor's own log lines (a malformed envelope, a component that died). */
  log?: (line: string) => void;
  /** Grace between SIGTERM and SIGKILL when the chain is stopped (default 2000 ms). */
  killTimeoutMs?: number;
  /** How in-process components are linked (`createMemoryTransportPair`'s options; default: microtask delivery). */
  memoryTransport?: MemoryTransportOptions;
}

/** One position of a running chain. */
export interface ChainNode {
  /** Its trace name: `Proxy(n)` or `Agent`. */
  readonly name: string;
  /** Its process id (-1 when it could not be started); undefined for an in-process component, which has no process (group) of its own. */
  readonly pid: number | undefined;
  /** True for a component running in the conductor's process. */
  readonly inProcess: boolean;
}

export interface ConductorHandle {
  /**
   * The process ids of the programs that run as processes: the components then the agent, in chain
   * order. In-process components have none and are left out (see {@link ConductorHandle.nodes}).
   */
  readonly pids: readonly number[];
  /** Every position of the chain, components then the agent, in chain order. */
  readonly nodes: readonly ChainNode[];
  /** Settles once the whole chain has stopped, with the reason it stopped. */
  readonly done: Promise<{ reason: string }>;
  /** Stops the chain as one unit: every program's process group and in-process component, then the editor connection. */
  stop(reason?: string): Promise<{ reason: string }>;
}

/** A message's kind and content as the conductor routes it. */
interface Routed {
  kind: 'request' | 'notification';
  method: string;
  params: unknown;
  /** A request's context where it came in: cancelling it cancels the request sent on. */
  ctx?: RequestContext;
  /** What else cancels it (the MCP bridge's own requests). */
  signal?: AbortSignal;
}

/**
 * Starts a proxy chain (Proxy Chains RFD, "Proxying in practice: the role of the conductor"):
 * each component and the agent run as child processes in their own process group; to the editor
 * the conductor is an ordinary agent. It sends `proxy/initialize` to every component and
 * `initialize` to the agent ("Conductor behavior"), routes a component's `proxy/successor` to the
 * next program unwrapped and delivers what a program sends towards the editor to the previous
 * component wrapped in `proxy/successor` ("Message reference"). When the editor leaves or any
 * program of the chain exits, the whole chain is stopped.
 */
export function startConductor(options: ConductorOptions): ConductorHandle {
  return new Conductor(options).handle();
}

class Conductor {
  private readonly n: number;
  private readonly links: Link[];
  private readonly peers: JsonRpcPeer[];
  private readonly client: JsonRpcPeer;
  private readonly trace: TraceWriter | undefined;
  /** Notifications are forwarded as text, past the peers (see `bypass`): off while tracing, which must see them. */
  private readonly lane: boolean;
  /** The editor's side is the conductor's own stdio, which writes a {@link RawMessage} as text. */
  private readonly clientTakesText: boolean;
  /** The chain's protocol version: the editor's, unless the conductor supports only a lower one. */
  private version: 1 | 2 = 1;
  /** Set once the agent answered `initialize` without MCP over ACP: the conductor bridges its `acp` servers. */
  private bridge: McpBridge | undefined;
  private stopping: Promise<{ reason: string }> | undefined;
  private onFinished: (r: { reason: string }) => void = () => undefined;
  private readonly finished = new Promise<{ reason: string }>((r) => (this.onFinished = r));

  constructor(private readonly options: ConductorOptions) {
    this.n = options.components.length;
    this.trace = options.trace ? new TraceWriter(options.trace) : undefined;
    this.lane = this.trace === undefined;
    this.clientTakesText = options.client === undefined;
    const tracer = this.trace ? new HopTracer(this.trace, this.n) : undefined;
    this.links = [...options.components, options.agent].map((p, i) => this.link(p, i));
    this.peers = this.links.map((link, i) => new JsonRpcPeer(link.transport, { tap: tracer?.tapFor(i), relay: true }));
    // the conductor only routes: payloads stay the text they came as (see `rawPayload`)
    const bypass = this.lane ? (m: Record<string, unknown>, line: string) => this.bypass(-1, m, line) : undefined;
    this.client = new JsonRpcPeer(options.client ?? stdioTransport({ rawPayload: true, bypass }), {
      tap: tracer?.tapFor(-1),
      relay: true,
    });
    this.wire();
  }

  handle(): ConductorHandle {
    const nodes = this.links.map((l, i) => ({ name: nodeName(i, this.n), pid: l.pid, inProcess: !l.text }));
    return {
      pids: nodes.flatMap((node) => (node.pid === undefined ? [] : [node.pid])),
      nodes,
      done: this.finished,
      stop: (reason) => this.stop(reason ?? 'stopped'),
    };
  }

  private link(p: ChainComponent, i: number): Link {
    const name = nodeName(i, this.n);
    if (isInProcess(p)) {
      const label = p.name ? `${p.name} (${name})` : name;
      return inProcessLink(p, label, { log: this.options.log, transport: this.options.memoryTransport });
    }
    const onStderr = this.options.onStderr ?? ((_: string, text: string) => void process.stderr.write(text));
    return spawnLink(p, {
      killTimeoutMs: this.options.killTimeoutMs,
      rawPayload: true,
      bypass: this.lane ? (m, line) => this.bypass(i, m, line) : undefined,
      onStderr: (text) => onStderr(name, text),
    });
  }

  /**
   * The pass-through lane: a notification read at position `from` that `down`/`up` would only
   * re-envelope is written to the next program as text, without the peers' per-message work.
   * Ordering holds: the conductor's notification handlers never hold a peer's inbox, so the peer
   * would have forwarded it at this same point. False (the peer takes it) for anything else:
   * requests, answers, `initialize`, what the MCP bridge reads, envelopes the full check must read.
   *
   * With in-process components (object hops): the lane starts only on text links (stdio, the
   * transports with a `bypass` hook). Where it ends on an in-process component, that component is
   * handed the message object the peer would have sent (params still the received text, `RawJson`):
   * an object hop has no line to splice, only the peer's dispatch to save. What an in-process
   * component sends always takes the peer: a lane for it too (intercepting the memory link's
   * deliveries) was measured and saved nothing (3 in-process components, CPU per 1,000 updates
   * 28-39 with and without it), so it was not kept.
   */
  private bypass(from: number, m: Record<string, unknown>, line: string): boolean {
    // a held inbox (an answer still being relayed) keeps what follows behind it
    if ((from < 0 ? this.client : this.peers[from])?.holding !== false) return false;
    const n = passNotification(m);
    if (!n) return false;
    if (from >= 0 && from < this.n && n.method === ProxyMethods.successor) {
      const inner = unwrapSuccessor(n);
      return inner !== undefined && this.passDown(from, inner);
    }
    return from < 0 ? this.passDown(from, n, line) : this.passUp(from, n, line);
  }

  /**
   * Where a notification read at position `from` goes, one step towards the agent (`step` 1) or the
   * editor (-1): the next position, or further, past each in-process component that would only pass
   * it on at once with nothing on its way through it (`Link.passesOn`), so it costs no dispatch
   * there. Never past one while tracing: the trace shows every hop.
   */
  private target(from: number, step: 1 | -1, method: string): number {
    let to = from + step;
    if (!this.lane) return to;
    const dir = step > 0 ? 'toAgent' : 'toClient';
    while (to >= 0 && to < this.n && this.peers[to]?.holding === false && this.links[to]?.passesOn?.(dir, method))
      to += step;
    return to;
  }

  /** `line`: the plain notification's own line, written as it is when it is the line the peer would write. */
  private passDown(from: number, n: PassNotification, line?: string): boolean {
    const to = this.target(from, 1, n.method);
    const peer = this.peers[to];
    if (!peer || n.method === 'initialize' || (to === this.n && this.bridge)) return false;
    peer.transport.send(this.links[to]?.text === false ? notificationMessage(n) : notificationLine(n, line));
    return true;
  }

  private passUp(from: number, n: PassNotification, line?: string): boolean {
    const to = this.target(from, -1, n.method);
    if (to < 0) {
      if (!this.clientTakesText) return false;
      this.client.transport.send(notificationLine(n, line));
      return true;
    }
    const peer = this.peers[to];
    if (!peer) return false;
    peer.transport.send(this.links[to]?.text === false ? successorMessage(n) : successorLine(n));
    return true;
  }

  private wire(): void {
    this.client.onOtherRequest((method, params, ctx) => this.down(-1, call('request', method, params, ctx)));
    this.client.onOtherNotification((method, params) => void this.down(-1, call('notification', method, params)));
    void this.client.closed.then((info) => this.stop(`the editor left: ${info.reason}`));
    this.peers.forEach((peer, i) => {
      if (i < this.n) {
        peer.onRequest(ProxyMethods.successor, (params, ctx) => {
          const env = readSuccessor(this.version, 'request', params);
          return this.down(i, call('request', env.method, env.params, ctx));
        });
        peer.onNotification(ProxyMethods.successor, (params) => this.forwardNotification(i, params));
      }
      peer.onOtherRequest((method, params, ctx) => this.up(i, call('request', method, params, ctx)));
      peer.onOtherNotification((method, params) => void this.up(i, call('notification', method, params)));
      void peer.closed.then((info) => this.stop(`${nodeName(i, this.n)} ended: ${info.reason}`));
    });
  }

  /** A component's `proxy/successor` notification: a bad envelope cannot be answered, so it is logged and dropped. */
  private forwardNotification(i: number, params: unknown): void {
    try {
      const env = readSuccessor(this.version, 'notification', params);
      void this.down(i, call('notification', env.method, env.params));
    } catch (e) {
      this.options.log?.(`${nodeName(i, this.n)} sent a malformed proxy/successor notification: ${String(e)}`);
    }
  }

  /**
   * Delivers a message from position `from` to the next program: `initialize` becomes
   * `proxy/initialize` for a component and carries the chain's version; everything else is sent
   * as it came, unwrapped.
   */
  private down(from: number, m: Routed): Promise<unknown> | undefined {
    const to = m.kind === 'notification' ? this.target(from, 1, m.method) : from + 1;
    const peer = this.peers[to];
    if (!peer) return undefined;
    let { method, params } = m;
    if (method === 'initialize') {
      const negotiated = negotiateChainVersion(plainJson(params));
      if (from < 0) this.version = negotiated.version;
      params = negotiated.params;
      if (to < this.n) method = ProxyMethods.initialize;
    }
    if (to === this.n && this.bridge) {
      params = plainJson(params);
      // a notification of a request the bridge relays goes to that request's shim, not the agent
      if (m.kind === 'notification' && method === 'mcp/message' && this.bridge.takeNotification(params)) return;
      params = this.bridge.rewrite(method, params);
    }
    if (m.kind === 'notification') return void peer.notify(method, params);
    const answer = peer.request(method, params, { signal: m.signal, cancelWith: m.ctx, onAbort: 'wait' });
    return to === this.n && method === 'initialize' ? answer.then((r) => this.agentInitialized(r)) : answer;
  }

  /**
   * The agent's `initialize` answer on its way up: the conductor advertises MCP over ACP to the
   * components and the editor, and bridges it itself when the agent lacks it (Proxy Chains RFD,
   * "MCP-over-ACP support"; MCP-over-ACP RFD, "Bridging for agents without native support").
   */
  private agentInitialized(result: unknown): unknown {
    const advertised = advertiseMcpOverAcp(this.version, plainJson(result));
    this.bridge?.close();
    this.bridge = advertised.bridge
      ? new McpBridge(this.version, (params, signal) =>
          // the bridge reads the answer: parsed, not left as the text it came as
          Promise.resolve(this.up(this.n, call('request', 'mcp/message', params, undefined, signal))).then(plainJson),
        )
      : undefined;
    return advertised.result;
  }

  /** Delivers a message from position `from` towards the editor: to the previous component wrapped in `proxy/successor`. */
  private up(from: number, m: Routed): Promise<unknown> | undefined {
    const to = m.kind === 'notification' ? this.target(from, -1, m.method) : from - 1;
    const peer = to < 0 ? this.client : this.peers[to];
    if (!peer) return undefined;
    const method = to < 0 ? m.method : ProxyMethods.successor;
    const params =
      to < 0 ? m.params : m.params === undefined ? { method: m.method } : { method: m.method, params: m.params };
    if (m.kind === 'notification') return void peer.notify(method, params);
    return peer.request(method, params, { signal: m.signal, cancelWith: m.ctx, onAbort: 'wait' });
  }

  private stop(reason: string): Promise<{ reason: string }> {
    this.stopping ??= (async () => {
      this.options.log?.(`stopping the chain: ${reason}`);
      // every program at once: each kill is SIGTERM to its group, then SIGKILL after the grace
      await Promise.all(this.links.map((l) => l.stop(reason)));
      this.bridge?.close();
      this.client.close({ reason });
      this.trace?.close();
      const r = { reason };
      this.onFinished(r);
      return r;
    })();
    return this.stopping;
  }
}

function call(
  kind: 'request' | 'notification',
  method: string,
  params: unknown,
  ctx?: RequestContext,
  signal?: AbortSignal,
): Routed {
  return { kind, method, params, ctx, signal };
}

import {
  AcpError,
  codecFor,
  ProxyMethods,
  type AnySessionUpdate,
  type PromptRequest,
  type PromptResponse,
  type UpdateDecoder,
  type UpdateEncoder,
} from '@acp-kit/protocol';
import {
  JsonRpcPeer,
  plainJson,
  RawJson,
  stdioTransport,
  type ProtocolProblem,
  type RawMessage,
  type RequestContext,
  type Transport,
} from '@acp-kit/protocol/rpc';
import { readSuccessor } from './successor.js';
import { namedError } from './component-error.js';
import { refuseStdioWhileLoading } from './load-component.js';
import { notificationLine, passNotification, successorLine, unwrapSuccessor } from './pass-through.js';

/** One side of a component's connection: the editor's (its predecessor) or the agent's (its successor). */
export interface ComponentSide {
  request(method: string, params?: unknown): Promise<unknown>;
  notify(method: string, params?: unknown): void;
}

/** What every handler of a component is given. */
export interface ComponentContext {
  /** The chain's protocol version, from `proxy/initialize` (1 until then). */
  readonly version: 1 | 2;
  /** Messages towards the editor: sent plain, the conductor delivers them to the predecessor. */
  readonly toClient: ComponentSide;
  /** Messages towards the agent: wrapped in `proxy/successor` for the conductor. */
  readonly toAgent: ComponentSide;
  /** Injects a neutral session update towards the editor, encoded for the chain's version. */
  sendUpdate(sessionId: string, update: AnySessionUpdate): void;
  /** Aborted when the request being handled is cancelled (`$/cancel_request`); undefined for a notification. */
  readonly signal?: AbortSignal;
  /**
   * Ends the component's connection to the conductor, as a component program ends by exiting: the
   * conductor then stops the whole chain, with `reason` in its log.
   */
  close(reason?: string): void;
}

/** A neutral session update on its way to the editor. */
export interface UpdateEvent {
  sessionId: string;
  update: AnySessionUpdate;
}

/**
 * Intercepts a wire message by method. `next` sends it on (with the params given) and returns
 * the answer for a request; not calling it swallows a notification or answers a request itself.
 */
export type RawHandler = (
  params: unknown,
  next: (params: unknown) => Promise<unknown>,
  ctx: ComponentContext,
) => unknown;

/**
 * A proxy component's behaviour, per method and direction. Prompts and updates come in the
 * neutral model (protocol/model), so one component works on v1 and v2 chains; everything else
 * as the wire has it, by wire method name. What has no handler is forwarded unchanged (the RFD:
 * a proxy SHOULD forward what it does not understand and keep `_meta`).
 */
export interface ComponentDefinition {
  /** `session/prompt` on its way to the agent; `next` sends it and resolves with the agent's answer. */
  onPrompt?(
    req: PromptRequest,
    next: (req: PromptRequest) => Promise<PromptResponse>,
    ctx: ComponentContext,
  ): Promise<PromptResponse> | PromptResponse;
  /** Each neutral update of a `session/update` on its way to the editor; `next` passes it on (or a changed one). */
  onUpdate?(u: UpdateEvent, next: (u: UpdateEvent) => void, ctx: ComponentContext): void | Promise<void>;
  /** Any other message towards the agent (requests and notifications), by wire method. */
  toAgent?: Readonly<Record<string, RawHandler>>;
  /** Any other message towards the editor (requests and notifications), by wire method. */
  toClient?: Readonly<Record<string, RawHandler>>;
  /**
   * Called once the chain is initialized. The place for components that extend the chain's
   * capabilities (e.g. an MCP-over-ACP injector, `mcp/*` messages through `toAgent`/`toClient`).
   */
  onReady?(ctx: ComponentContext): void;
}

/** Defines a component: the identity, typed (the handlers are checked against {@link ComponentDefinition}). */
export function defineComponent(definition: ComponentDefinition): ComponentDefinition {
  return definition;
}

export interface RunComponentOptions {
  /** The conductor's side (default: this process's stdin / stdout). */
  transport?: Transport;
  /**
   * Sees the component's conversation with its predecessor in wire order, as a plain ACP
   * connection: what came from the editor side and what went back to it (`proxy/initialize` as
   * `initialize`, `proxy/successor` envelopes to and from the successor left out). For recorders
   * and validators run as components.
   */
  observe?: (dir: 'editor->agent' | 'agent->editor', message: object) => void;
  /**
   * Names the component in the error a request is answered with when one of its handlers throws
   * something that is no `AcpError` (`Internal error: component <name> failed in <method>: ...`).
   * An `AcpError` (the handler's own answer, or one from the next hop) is answered as it is.
   */
  name?: string;
  /** Protocol problems of the component's peer (a notification handler that threw: nobody can be answered). */
  onProblem?: (problem: ProtocolProblem) => void;
}

/** A running component: settles when the conductor's connection ends. */
export interface ComponentHandle {
  readonly closed: Promise<{ reason: string }>;
}

/**
 * Runs a component on stdio (or `options.transport`) for a conductor: answers `proxy/initialize`
 * by forwarding `initialize` to its successor (the schema: "before answering successfully, the
 * proxy MUST forward an `initialize` request to its successor"), and routes every message through
 * the definition's handlers.
 */
export function runComponent(definition: ComponentDefinition, options: RunComponentOptions = {}): ComponentHandle {
  return { closed: start(definition, options).closed };
}

/** A component the conductor runs in its own process: its handle, and what the conductor's routing asks of it. */
export interface InProcessRun extends ComponentHandle {
  /**
   * True when the component would pass notification `method` going `dir` on unchanged, at once: no
   * handler of it can run for the method, it has no observer, and nothing waits in its inbox. The
   * conductor may then deliver the notification past it (the transport between them must be empty too).
   */
  passesOn(dir: 'toAgent' | 'toClient', method: string): boolean;
}

/** {@link runComponent} on an in-memory transport, for the conductor (see {@link InProcessRun}). */
export function runInProcess(
  definition: ComponentDefinition,
  options: RunComponentOptions & { transport: Transport },
): InProcessRun {
  const runner = start(definition, options);
  const observed = options.observe !== undefined;
  const toAgent = definition.toAgent;
  const toClient = definition.toClient;
  const onUpdate = definition.onUpdate !== undefined;
  return {
    closed: runner.closed,
    passesOn: (dir, method) =>
      !observed &&
      !runner.holding &&
      (dir === 'toAgent'
        ? toAgent?.[method] === undefined
        : toClient?.[method] === undefined && !(onUpdate && method === 'session/update')),
  };
}

function start(definition: ComponentDefinition, options: RunComponentOptions): ComponentRunner {
  const tap = options.observe ? predecessorTap(options.observe) : undefined;
  // on stdio a message no handler wants is forwarded as the text it came as (`rawPayload`); an
  // observer sees whole messages, so then everything is parsed
  let runner: ComponentRunner | undefined;
  const bypass = options.observe || !onlyRequestHandlers(definition) ? undefined : passThrough(() => runner);
  if (!options.transport) refuseStdioWhileLoading();
  const transport = options.transport ?? stdioTransport({ rawPayload: !options.observe, bypass });
  const peer = new JsonRpcPeer(transport, { tap, onProblem: options.onProblem, relay: true });
  runner = new ComponentRunner(definition, peer, options.name);
  return runner;
}

/**
 * True when no handler of `def` can run for a notification (no `onUpdate`, no raw handlers): then
 * the peer's inbox is never held, and a notification can skip the peer without overtaking one.
 */
function onlyRequestHandlers(def: ComponentDefinition): boolean {
  const none = (r: Readonly<Record<string, RawHandler>> | undefined): boolean => !r || Object.keys(r).length === 0;
  return !def.onUpdate && none(def.toAgent) && none(def.toClient);
}

/**
 * The pass-through lane of a component with nothing to do for notifications: a `proxy/successor`
 * notification goes to the editor side unwrapped, any other one to the agent side wrapped, as text
 * (what `fromAgent` / `fromClient` would send, without the peer's per-message work).
 */
function passThrough(runner: () => ComponentRunner | undefined): (m: Record<string, unknown>) => boolean {
  return (m) => {
    const r = runner();
    // a held inbox (an answer still being relayed) keeps what follows behind it
    const n = r && !r.holding && passNotification(m);
    if (!r || !n) return false;
    if (n.method !== ProxyMethods.successor) {
      r.sendLine(successorLine(n));
      return true;
    }
    const inner = unwrapSuccessor(n);
    if (!inner) return false;
    r.sendLine(notificationLine(inner));
    return true;
  };
}

class ComponentRunner {
  private version: 1 | 2 = 1;
  private readonly decoders = new Map<string, UpdateDecoder>();
  private readonly encoders = new Map<string, UpdateEncoder>();
  readonly closed: Promise<{ reason: string }>;
  private readonly toClient: ComponentSide;
  private readonly toAgent: ComponentSide;

  constructor(
    private readonly def: ComponentDefinition,
    private readonly peer: JsonRpcPeer,
    private readonly name: string | undefined,
  ) {
    this.toClient = {
      request: (method, params) => peer.request(method, params).then(plainJson),
      notify: (method, params) => peer.notify(method, params),
    };
    this.toAgent = {
      request: (method, params) => peer.request(ProxyMethods.successor, envelope(method, params)).then(plainJson),
      notify: (method, params) => peer.notify(ProxyMethods.successor, envelope(method, params)),
    };
    this.closed = peer.closed.then((info) => ({ reason: info.reason }));
    peer.onRequest(ProxyMethods.initialize, (params) => this.initialize(params));
    peer.onRequest(ProxyMethods.successor, (params, ctx) => this.fromAgent('request', params, ctx));
    peer.onNotification(ProxyMethods.successor, (params) => settled(this.fromAgent('notification', params)));
    peer.onOtherRequest((method, params, ctx) => this.fromClient('request', method, params, ctx));
    peer.onOtherNotification((method, params) => settled(this.fromClient('notification', method, params)));
  }

  /** True while the peer's inbox holds messages: the pass-through lane must not overtake them. */
  get holding(): boolean {
    return this.peer.holding;
  }

  /** Writes a line the pass-through lane built (see {@link passThrough}). */
  sendLine(line: RawMessage): void {
    this.peer.transport.send(line);
  }

  private ctx(signal?: AbortSignal): ComponentContext {
    return {
      version: this.version,
      toClient: this.toClient,
      toAgent: this.toAgent,
      signal,
      sendUpdate: (sessionId, update) => this.emitUpdate({ sessionId, update }),
      close: (reason) => this.peer.close({ reason: reason ?? 'the component closed its connection' }),
    };
  }

  /**
   * Runs a handler of the definition: what it throws (or rejects with) that is no `AcpError` is
   * answered as an internal error naming the component, when it has a name.
   */
  private guarded(method: string, run: () => unknown): unknown {
    const name = this.name;
    if (name === undefined) return run();
    let r: unknown;
    try {
      r = run();
    } catch (e) {
      throw namedError(name, method, e);
    }
    return r instanceof Promise ? r.catch((e: unknown) => Promise.reject(namedError(name, method, e))) : r;
  }

  private async initialize(params: unknown): Promise<unknown> {
    const p = plainJson(params);
    const v: unknown = isRecord(p) ? p.protocolVersion : undefined;
    if (v !== 1 && v !== 2) throw AcpError.invalidParams('proxy/initialize: params.protocolVersion: must be 1 or 2');
    this.version = v;
    const result = await this.toAgent.request('initialize', p);
    const onReady = this.def.onReady;
    if (onReady) this.guarded(ProxyMethods.initialize, () => onReady(this.ctx()));
    return result;
  }

  /**
   * A message from the successor (the agent side), delivered in a `proxy/successor` envelope.
   * Not async: a notification with no handler is passed on at once, so the peer's inbox is not
   * held for a promise per message (the pass-through hop's cost).
   */
  private fromAgent(kind: 'request' | 'notification', params: unknown, rc?: RequestContext): unknown {
    const env = readSuccessor(this.version, kind, params);
    const h = this.def.toClient?.[env.method];
    const onUpdate = env.method === 'session/update' && kind === 'notification' && this.def.onUpdate;
    if (!h && !onUpdate) {
      return kind === 'request'
        ? this.peer.request(env.method, env.params, { cancelWith: rc, onAbort: 'wait' })
        : this.toClient.notify(env.method, env.params);
    }
    const ctx = this.ctx(rc?.signal);
    const inner = plainJson(env.params);
    if (onUpdate) return this.guarded(env.method, () => this.updates(inner, ctx));
    const send = (p: unknown): Promise<unknown> =>
      kind === 'request'
        ? this.peer.request(env.method, p, { signal: rc?.signal, onAbort: 'wait' }).then(plainJson)
        : Promise.resolve(this.toClient.notify(env.method, p));
    return h ? this.guarded(env.method, () => h(inner, send, ctx)) : send(inner);
  }

  /** A message from the predecessor (the editor side), sent plain; not async for the same reason as `fromAgent`. */
  private fromClient(kind: 'request' | 'notification', method: string, raw: unknown, rc?: RequestContext): unknown {
    const h = this.def.toAgent?.[method];
    if (!h && !(method === 'session/prompt' && kind === 'request')) {
      return kind === 'request'
        ? this.peer.request(ProxyMethods.successor, envelope(method, raw), { cancelWith: rc, onAbort: 'wait' })
        : this.toAgent.notify(method, raw);
    }
    const ctx = this.ctx(rc?.signal);
    const params = plainJson(raw);
    const send = (p: unknown): Promise<unknown> =>
      kind === 'request'
        ? // a cancelled request is cancelled on the next hop too; its answer still comes back
          this.peer
            .request(ProxyMethods.successor, envelope(method, p), { signal: rc?.signal, onAbort: 'wait' })
            .then(plainJson)
        : Promise.resolve(this.toAgent.notify(method, p));
    if (method === 'session/prompt' && kind === 'request')
      return this.guarded(method, () => this.prompt(params, send, ctx));
    return h ? this.guarded(method, () => h(params, send, ctx)) : send(params);
  }

  private async prompt(
    params: unknown,
    send: (p: unknown) => Promise<unknown>,
    ctx: ComponentContext,
  ): Promise<unknown> {
    const codec = codecFor(this.version);
    const req = codec.decodeParams('session/prompt', params);
    // v1 groups id-less chunks per turn: a prompt starts a new message
    this.decoders.get(req.sessionId)?.startTurn?.();
    const onPrompt = this.def.onPrompt;
    if (!onPrompt) return send(params);
    const next = async (r: PromptRequest): Promise<PromptResponse> =>
      codec.decodeResult('session/prompt', await send(codec.encodeParams('session/prompt', r)));
    return codec.encodeResult('session/prompt', await onPrompt(req, next, ctx));
  }

  /** A `session/update` through `onUpdate`: decoded to neutral updates, each handled, re-encoded. */
  private async updates(params: unknown, ctx: ComponentContext): Promise<void> {
    const sessionId: unknown = isRecord(params) ? params.sessionId : undefined;
    const wire: unknown = isRecord(params) ? params.update : undefined;
    const onUpdate = this.def.onUpdate;
    if (typeof sessionId !== 'string' || !onUpdate) return this.toClient.notify('session/update', params);
    let decoder = this.decoders.get(sessionId);
    if (!decoder) this.decoders.set(sessionId, (decoder = codecFor(this.version).createUpdateDecoder()));
    for (const update of decoder.decode(wire)) {
      await onUpdate({ sessionId, update }, (u) => this.emitUpdate(u), ctx);
    }
  }

  private emitUpdate(u: UpdateEvent): void {
    let encoder = this.encoders.get(u.sessionId);
    if (!encoder) this.encoders.set(u.sessionId, (encoder = codecFor(this.version).createUpdateEncoder()));
    for (const update of encoder.encode(u.update)) {
      this.toClient.notify('session/update', { sessionId: u.sessionId, update });
    }
  }
}

/**
 * What a notification handler gives the peer: a promise to hold the inbox for while a handler
 * (or a thenable it returned) settles, so later messages keep their order; nothing when it ran
 * synchronously.
 */
function settled(r: unknown): void | Promise<void> {
  const thenable = typeof r === 'object' && r !== null && 'then' in r && typeof r.then === 'function';
  return thenable ? Promise.resolve(r).then(() => undefined) : undefined;
}

function envelope(method: string, params: unknown): { method: string; params?: unknown } {
  return params === undefined ? { method } : { method, params };
}

function isRecord(v: unknown): v is { [key: string]: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A peer tap that passes on only the predecessor leg: requests and notifications that are no
 * `proxy/successor`, and the answers that belong to them (answers to the component's own
 * envelopes, and its answers to the conductor's envelopes, are the successor leg).
 */
function predecessorTap(observe: NonNullable<RunComponentOptions['observe']>): {
  sent(m: object): void;
  received(m: unknown): void;
} {
  const sentEnvelopes = new Set<string>();
  const receivedEnvelopes = new Set<string>();
  const see = (dir: 'editor->agent' | 'agent->editor', m: unknown, own: Set<string>, other: Set<string>): void => {
    if (!isRecord(m)) return;
    const key = JSON.stringify(m.id ?? null);
    if (m.method === ProxyMethods.successor) {
      if ('id' in m) own.add(key);
      return;
    }
    if (typeof m.method !== 'string' && other.delete(key)) return;
    const plain = plainMessage(m);
    observe(dir, plain.method === ProxyMethods.initialize ? { ...plain, method: 'initialize' } : plain);
  };
  return {
    sent: (m) => see('agent->editor', m, sentEnvelopes, receivedEnvelopes),
    received: (m) => see('editor->agent', m, receivedEnvelopes, sentEnvelopes),
  };
}

/**
 * `m` with a payload left as received text (`RawJson`, in process: what a text hop read) parsed, as a
 * copy: an observer sees whole messages, and the message itself is not changed (other hops hold it).
 */
function plainMessage(m: { [key: string]: unknown }): { [key: string]: unknown } {
  const params = m.params instanceof RawJson ? { params: m.params.value } : undefined;
  const result = m.result instanceof RawJson ? { result: m.result.value } : undefined;
  return params || result ? { ...m, ...params, ...result } : m;
}

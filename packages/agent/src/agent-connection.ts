import { randomUUID, isObj } from '@acp-kit/protocol/internal';
import { isAbsolute } from 'node:path';
import {
  agentMethodSupported,
  codecFor,
  type UpdateEncoder,
  type WireCodec,
  AcpError,
  type AuthenticateRequest,
  type InitializeRequest,
  type InitializeResponse,
  type LoadSessionRequest,
  type NewSessionRequest,
  type PromptRequest,
  type ResumeSessionRequest,
  type SessionIdRequest,
  type SessionSetupResult,
  Methods,
  type AgentMethod,
  type ClientMethod,
  type ClientNotifications,
  type EmptyResult,
  type NewSessionResponse,
  type ParamsOf,
  type PromptResponse,
  type ResultOf,
  type AgentCapabilities,
  type ConfigOption,
  type ForkSessionRequest,
  type ForkSessionResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type SessionStatusResponse,
  type SetSessionTitleRequest,
  type SetSessionTitleResponse,
  type McpServer,
  type PermissionOutcome,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type PermissionRequest,
  type StateUpdate,
  type AuthStatus,
  getValidator,
  type WireValidator,
  negotiateVersion,
  SUPPORTED_VERSIONS,
  type ProtocolVersion,
} from '@acp-kit/protocol';
import {
  JsonRpcPeer,
  type PeerOptions,
  type RequestContext,
  type CloseInfo,
  type Transport,
} from '@acp-kit/protocol/rpc';
import { AuthStatusTracker, disableProvider, listProviders, setProvider } from './auth-providers.js';
import { restoreValues } from './config-options.js';
import { McpOverAcpRoutes, type McpOverAcpChannel } from './mcp-over-acp.js';
import { messageOf } from './error-text.js';
import { lifecycleFor, type AgentLifecycle, type LifecycleSession } from './lifecycle/index.js';
import { stderrLogger, type AgentLogger } from './logger.js';
import { listPage } from './session-list.js';
import { replayHistory } from './replay.js';
import { SessionRuntime, type SessionAttachment, type AgentSessionHost } from './session-runtime.js';
import type { SharedSessions } from './shared-sessions.js';
import { archiveFilter, normalizeTitle, unstableCapabilities } from './unstable-sessions.js';
import {
  InMemorySessionStore,
  forkStored,
  SESSION_LOCKED,
  isHistoryUpdate,
  isPending,
  storeError,
  storedMeta,
  type SessionStore,
  type StoredSession,
} from './session-store.js';
import type { AgentDefinition, ClientPeerInfo, ClientServices, PermissionQuestion, SessionSetup } from './types.js';

export interface ServeAgentOptions {
  /**
   * Where session histories live. Omitted: a fresh {@link InMemorySessionStore} (load/list/resume
   * work while the process lives). `null`: no history is kept at all (updates are not stored, so
   * streaming costs nothing extra) and no persistence is advertised: v1 has no `loadSession`,
   * list, resume or delete; v2 still serves its baseline list/resume from the sessions' metadata
   * kept in memory, and a resume (even with `replayFrom`) replays nothing.
   */
  store?: SessionStore | null;
  /** Protocol versions served (default `[1, 2]`). */
  supportedVersions?: readonly ProtocolVersion[];
  /** v2 prompts held while a turn runs, per session (default 8); more are refused with -32600. */
  maxHeldPrompts?: number;
  /** Validate every outgoing result, request and update against the official schema (dev/test; slower). */
  validateOutgoing?: boolean;
  /** Default: stderr. */
  logger?: AgentLogger;
  /** How long a cancelled turn may take to return before it is ended anyway (default 5000 ms). */
  cancelTimeoutMs?: number;
  /** Passed to the {@link JsonRpcPeer} (e.g. a `tap` for conformance tests). */
  peer?: Pick<PeerOptions, 'tap' | 'onProblem'>;
  /**
   * v2 sessions shared with the other connections given the same instance (and the same `store`):
   * a client resuming or loading a session another connection has open attaches to it (see
   * {@link SharedSessions}). Omitted: every connection opens its own runtime (v1 always does).
   */
  sharedSessions?: SharedSessions;
}

/** A served connection. */
export interface AgentConnection {
  readonly peer: JsonRpcPeer;
  /** The negotiated version, once `initialize` succeeded. */
  readonly protocolVersion: ProtocolVersion | undefined;
  /** Resolves when the connection has ended and every session of it was closed. */
  readonly closed: Promise<CloseInfo>;
  /** Ends the connection (running turns are cancelled). */
  close(): void;
  /**
   * For an input that has ended (the client closed its side) or a server shutting down: cancels
   * every running turn, then resolves once each request received so far has been answered and each
   * turn has ended (a v2 turn's `cancelled` idle queued), or after `timeoutMs` (default 5000).
   * Resolves `true` when nothing was left. The connection stays open: call {@link close} afterwards.
   */
  drain(timeoutMs?: number): Promise<boolean>;
  /**
   * Sends an unstable `auth/status_update` (the definition's `auth` must be set, `initialize`
   * done). Returns `false` when nothing was sent: not advertised, not initialized, closed, or the
   * same status as the last one sent on this connection (the schema's SHOULD).
   */
  sendAuthStatus(status: AuthStatus): boolean;
}

/**
 * Serves `definition` as an ACP agent on `transport`, speaking v1 or v2 as the client's
 * `initialize` negotiates (ACP-ALL-INIT-03). The author writes against the neutral model once;
 * this runtime owns the protocol: version negotiation, sessions and their durable history,
 * the per-version prompt lifecycle, cancellation and replay.
 */
export function serveAgent(
  definition: AgentDefinition,
  transport: Transport,
  options: ServeAgentOptions = {},
): AgentConnection {
  return new AgentConnectionImpl(definition, transport, options);
}

/** The requests the runtime dispatches (`initialize` is answered before there is a codec). */
type ServedMethod = Exclude<AgentMethod, 'initialize'>;
type AgentHandler<M extends ServedMethod> = (
  conn: AgentConnectionImpl,
  params: ParamsOf<M>,
  ctx: RequestContext,
) => ResultOf<M> | Promise<ResultOf<M>>;
type AgentHandlers = { [M in ServedMethod]: AgentHandler<M> };

const DEFAULT_MAX_HELD = 8;
const DEFAULT_CANCEL_TIMEOUT = 5000;
const DEFAULT_DRAIN_TIMEOUT = 5000;

class AgentConnectionImpl implements AgentConnection {
  readonly peer: JsonRpcPeer;
  readonly closed: Promise<CloseInfo>;
  private readonly logger: AgentLogger;
  private readonly store: SessionStore;
  private readonly durable: boolean;
  private readonly supported: readonly ProtocolVersion[];
  /** The negotiated version's lifecycle (set by `initialize`). */
  private lifecycle: AgentLifecycle | undefined;
  private codec: WireCodec | undefined;
  private validator: WireValidator | undefined;
  private client: ClientPeerInfo = { protocolVersion: 2, info: null, capabilities: {} };
  private otherRequestSeen = false;
  private readonly sessions = new Map<string, SessionRuntime>();
  private host: AgentSessionHost | undefined;
  /** Requests received and not yet answered (drained at the end of input). */
  private inFlight = 0;
  private replayValidator: WireValidator | undefined;
  private onAnswered: (() => void) | undefined;
  /** set by drain(): the agent is ending (shutdown, end of input), new turns are refused */
  private draining = false;
  private drained: Promise<boolean> | undefined;
  private readonly authSent = new AuthStatusTracker();
  private unwatchAuth: (() => void) | undefined;
  /** MCP over ACP: `mcp/message` requests to the client and the routing of its notifications */
  private readonly mcpRoutes = new McpOverAcpRoutes((params, signal) =>
    this.requestClient(this.negotiatedCodec, Methods.mcpMessage, params, signal),
  );

  constructor(
    private readonly definition: AgentDefinition,
    transport: Transport,
    private readonly options: ServeAgentOptions,
  ) {
    this.logger = options.logger ?? stderrLogger(definition.info?.name);
    this.durable = options.store !== null;
    this.store = options.store ?? new InMemorySessionStore(this.durable ? {} : { history: false });
    this.supported = options.supportedVersions ?? SUPPORTED_VERSIONS;
    this.peer = new JsonRpcPeer(transport, {
      tap: options.peer?.tap,
      onProblem: (p) => {
        options.peer?.onProblem?.(p);
        // late answers to requests we cancelled ($/cancel_request) are normal, not a problem
        if (p.kind === 'unknown-response') this.logger.debug(`protocol: ${p.message}`);
        else this.logger.warn(`protocol problem (${p.kind}): ${p.message}`);
      },
    });
    this.peer.onOtherRequest(async (method, params, ctx) => {
      this.inFlight++;
      try {
        return await this.onRequest(method, params, ctx);
      } finally {
        this.inFlight--;
        // the answer is written after this handler settles: let the peer write it first
        if (this.inFlight === 0 && this.onAnswered) setImmediate(() => this.onAnswered?.());
      }
    });
    this.peer.onOtherNotification((method, params) => this.onNotification(method, params));
    this.closed = this.peer.closed.then(async (info) => {
      this.unwatchAuth?.();
      const all = [...this.sessions.values()];
      this.sessions.clear();
      // a session other clients share goes on without this one (its turn too)
      await Promise.all(all.map((s) => this.leave(s, 'the connection ending')));
      return info;
    });
  }

  get protocolVersion(): ProtocolVersion | undefined {
    return this.lifecycle?.version;
  }

  /** The lifecycle of a connection past `initialize` (requests other than `initialize` only come then). */
  private get negotiated(): AgentLifecycle {
    if (!this.lifecycle) throw AcpError.internal('no protocol version negotiated yet');
    return this.lifecycle;
  }

  /** The host of this connection's sessions (made by `initialize`). */
  private get negotiatedHost(): AgentSessionHost {
    if (!this.host) throw AcpError.internal('no protocol version negotiated yet');
    return this.host;
  }

  /** The negotiated version's codec (set by `initialize`). */
  private get negotiatedCodec(): WireCodec {
    if (!this.codec) throw AcpError.internal('no protocol version negotiated yet');
    return this.codec;
  }

  close(): void {
    this.peer.close({ reason: 'closed by the agent' });
  }

  drain(timeoutMs = DEFAULT_DRAIN_TIMEOUT): Promise<boolean> {
    // once: a second caller (the end of input during a shutdown) waits for the same drain
    return (this.drained ??= this.drainOnce(timeoutMs));
  }

  private async drainOnce(timeoutMs: number): Promise<boolean> {
    // the client can send nothing more (no cancel, no permission answer): end the turns now, so
    // open v1 prompts are answered `cancelled` instead of running on unseen
    this.draining = true;
    const sessions = [...this.sessions.values()];
    for (const s of sessions) s.cancel('the end of the input');
    // a v2 prompt was answered at insertion: its turn's `cancelled` end (the idle) is not a request
    // answer, so wait for the turns themselves too, or the connection closes before it is sent; with
    // an asynchronous store (a cluster's) what the turn sent goes out once persisted: wait for that too
    const turnsEnded = Promise.all(sessions.map((s) => s.flushed()));
    const answered =
      this.inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.onAnswered = () => {
              if (this.inFlight === 0) resolve();
            };
          });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const ok = await Promise.race([Promise.all([turnsEnded, answered]).then(() => true as const), timedOut]);
    clearTimeout(timer);
    this.onAnswered = undefined;
    if (!ok)
      this.logger.warn(
        `input ended: ${this.inFlight} request(s) unanswered or a turn still running after ${timeoutMs} ms; closing anyway`,
      );
    return ok;
  }

  // ---- dispatch -------------------------------------------------------------

  private async onRequest(wireMethod: string, params: unknown, ctx: RequestContext): Promise<unknown> {
    if (wireMethod === Methods.initialize) return this.initialize(params);
    const codec = this.codec;
    if (!codec)
      throw AcpError.invalidRequest(`"initialize" must complete before any other request (got "${wireMethod}")`);
    this.otherRequestSeen = true;
    if (wireMethod.startsWith('_')) {
      if (!this.definition.extMethod) throw AcpError.methodNotFound(wireMethod);
      return this.definition.extMethod(wireMethod, params);
    }
    const method = codec.neutralMethod(wireMethod);
    if (codec.wireMethod(method) !== wireMethod || !this.isServed(method)) throw AcpError.methodNotFound(wireMethod);
    return this.dispatch(codec, method, params, ctx);
  }

  /**
   * The one handler table, keyed by neutral method and typed through `AgentMethods`: each handler
   * gets the decoded params of its method and returns its neutral result. Which of them a
   * connection serves is {@link isServed}'s question, not the handlers'. One table for every
   * connection (the connection is an argument): a table of closures per connection cost ~1.6 KB
   * of every idle connection.
   */
  private static readonly handlers: AgentHandlers = {
    authenticate: (c, p) => c.authenticate(p),
    logout: async (c) => {
      await c.definition.logout?.();
      return {};
    },
    'session/new': (c, p) => c.newSession(p),
    'session/load': (c, p) => c.restore(p, 'load'),
    'session/resume': (c, p) => c.restore(p, 'resume'),
    'session/list': (c, p) => c.listSessions(p),
    'session/close': (c, p) => c.closeSession(p),
    'session/delete': (c, p) => c.deleteSession(p),
    'session/set_config_option': async (c, p) => ({
      configOptions: c.visibleConfig(await c.session(p.sessionId).setConfigOption(p.configId, p.value)),
    }),
    'session/set_mode': async (c, p) => {
      await c.session(p.sessionId).setMode(p.modeId);
      return {};
    },
    'session/prompt': (c, p, ctx) => c.prompt(p, ctx),
    'tool_call/cancel': async (c, p) => {
      await c.session(p.sessionId).cancelEntity('tool_call', p.toolCallId);
      return {};
    },
    'terminal/cancel': async (c, p) => {
      await c.session(p.sessionId).cancelEntity('terminal', p.terminalId);
      return {};
    },
    'session/fork': (c, p) => c.forkSession(p),
    'session/archive': (c, p) => c.setArchived(p, true),
    'session/unarchive': (c, p) => c.setArchived(p, false),
    'session/status': (c, p) => c.sessionStatus(p),
    'session/set_title': (c, p) => c.setTitle(p),
    // unstable: served only when advertised (isServed), so the definition's parts are there
    'auth/status': async (c) => {
      const status = await c.definitionPart('auth').status();
      c.authSent.changed(status);
      return status;
    },
    'providers/list': (c) => listProviders(c.definitionPart('providers')),
    'providers/set': async (c, p) => {
      await setProvider(c.definitionPart('providers'), p);
      return {};
    },
    'providers/disable': async (c, p) => {
      await disableProvider(c.definitionPart('providers'), p);
      return {};
    },
  };

  /** A part of the definition a served method needs (isServed already checked it is there). */
  private definitionPart<K extends 'auth' | 'providers'>(key: K): NonNullable<AgentDefinition[K]> {
    const part = this.definition[key];
    if (!part) throw AcpError.methodNotFound(key);
    return part;
  }

  sendAuthStatus(status: AuthStatus): boolean {
    const codec = this.codec;
    if (!codec || !this.definition.auth || this.peer.isClosed || !this.authSent.changed(status)) return false;
    this.notifyClient(codec, Methods.authStatusUpdate, status);
    return true;
  }

  /** The definition's `auth.watch`, once per connection, after the `initialize` answer is written. */
  private watchAuth(): void {
    const watch = this.definition.auth?.watch;
    if (!watch || this.unwatchAuth) return;
    this.unwatchAuth = () => undefined;
    // setImmediate: the peer writes the initialize result when this handler's promise settles
    setImmediate(() => {
      if (this.peer.isClosed) return;
      this.unwatchAuth = watch((status) => void this.sendAuthStatus(status));
    });
  }

  private async dispatch<M extends ServedMethod>(
    codec: WireCodec,
    method: M,
    params: unknown,
    ctx: RequestContext,
  ): Promise<unknown> {
    const handler: AgentHandler<M> = AgentConnectionImpl.handlers[method];
    const result = await handler(this, codec.decodeParams(method, params), ctx);
    const wire = codec.encodeResult(method, result);
    this.checkOutgoing('result', codec.wireMethod(method) ?? method, wire);
    return wire;
  }

  /**
   * Whether this connection serves `method`: a handled method that this version has and this
   * agent advertises ({@link agentMethodSupported}, the same rule the client applies).
   */
  private isServed(method: string): method is ServedMethod {
    const lifecycle = this.negotiated;
    return (
      this.handles(method) &&
      agentMethodSupported(method, lifecycle.version, this.capabilities(lifecycle), this.definition.authMethods ?? [])
    );
  }

  private handles(method: string): method is ServedMethod {
    return Object.hasOwn(AgentConnectionImpl.handlers, method);
  }

  private async onNotification(wireMethod: string, params: unknown): Promise<void> {
    const codec = this.codec;
    if (!codec) return; // ignored before initialize (like the official router)
    if (wireMethod.startsWith('_')) {
      await this.definition.extNotification?.(wireMethod, params);
      return;
    }
    if (wireMethod === Methods.mcpMessage) {
      this.onMcpMessage(codec, params);
      return;
    }
    if (codec.neutralMethod(wireMethod) !== Methods.sessionCancel) return;
    let p: SessionIdRequest;
    try {
      p = codec.decodeParams(Methods.sessionCancel, params);
    } catch (e) {
      this.logger.warn(`ignored malformed session/cancel: ${messageOf(e)}`);
      return;
    }
    const s = this.sessions.get(p.sessionId);
    if (s) s.cancel('session/cancel');
    else this.logger.debug(`session/cancel for unknown session ${p.sessionId} ignored`);
  }

  /** A client's `mcp/message` notification (MCP over ACP): to the inner request it belongs to. */
  private onMcpMessage(codec: WireCodec, params: unknown): void {
    try {
      this.mcpRoutes.deliver(codec.decodeParams(Methods.mcpMessage, params));
    } catch (e) {
      this.logger.warn(`ignored malformed mcp/message notification: ${messageOf(e)}`);
    }
  }

  // ---- initialize / auth ------------------------------------------------------

  private initialize(params: unknown): unknown {
    if (this.otherRequestSeen)
      throw AcpError.invalidRequest('"initialize" may only be repeated before any other request');
    if (!isObj(params))
      throw AcpError.invalidParams('params must be an object with "protocolVersion"', { path: 'params' });
    const requested = params.protocolVersion;
    // the version's lifecycle is chosen here, once: every other per-version choice is its
    const lifecycle = lifecycleFor(negotiateVersion(requested, this.supported));
    const version = lifecycle.version;
    const codec = codecFor(version);
    // (a number: negotiateVersion refused anything else)
    const sent = typeof requested === 'number' ? requested : 0;
    let req: InitializeRequest;
    try {
      // read the params in the shape the client sent them (a v2 client answered with v1 still sent v2 params)
      req = codecFor(sent >= 2 ? 2 : 1).decodeParams(Methods.initialize, params);
    } catch (e) {
      // a newer-than-known client: lenient, like the official router
      if (sent <= 2) throw e;
      req = { protocolVersion: sent, clientCapabilities: {} };
    }
    this.lifecycle = lifecycle;
    this.codec = codec;
    this.validator = this.options.validateOutgoing ? getValidator(version) : undefined;
    this.client = {
      protocolVersion: version,
      info: req.clientInfo ?? null,
      capabilities: req.clientCapabilities ?? {},
    };
    this.host = this.makeHost(lifecycle, codec);
    const res: InitializeResponse = {
      protocolVersion: version,
      agentInfo: this.definition.info,
      agentCapabilities: this.capabilities(lifecycle),
      authMethods: (this.definition.authMethods ?? []).filter(
        (m) => m.type !== 'terminal' || !!this.client.capabilities.authTerminal,
      ),
    };
    const wire = codec.encodeResult(Methods.initialize, res);
    this.checkOutgoing('result', Methods.initialize, wire);
    this.watchAuth();
    return wire;
  }

  private capabilities(lifecycle: AgentLifecycle): AgentCapabilities {
    const c = this.definition.capabilities ?? {};
    const caps: AgentCapabilities = lifecycle.runtimeCapabilities(this.durable, this.definition);
    const unstable = unstableCapabilities(this.definition.sessionMethods, this.durable, this.store);
    if (Object.keys(unstable).length > 0) caps.session = { ...caps.session, ...unstable };
    if (this.definition.auth) caps.authStatus = true;
    if (this.definition.providers) caps.providers = true;
    if (c.prompt) caps.prompt = c.prompt;
    if (c.mcp) caps.mcp = c.mcp;
    if (c._meta) caps._meta = c._meta;
    return caps;
  }

  private async authenticate(p: AuthenticateRequest): Promise<EmptyResult> {
    const method = (this.definition.authMethods ?? []).find((m) => m.methodId === p.methodId);
    if (!method) {
      throw AcpError.invalidParams(
        `params.methodId: ${JSON.stringify(p.methodId)} is not one of the advertised auth methods (${(this.definition.authMethods ?? []).map((m) => m.methodId).join(', ')})`,
        {
          path: 'params.methodId',
        },
      );
    }
    if (method.type === 'terminal') {
      throw AcpError.invalidParams(
        `params.methodId: ${JSON.stringify(p.methodId)} is a terminal login method; run it in a terminal instead (ACP-V1-AUTH-03)`,
        { path: 'params.methodId' },
      );
    }
    await this.definition.authenticate?.(p.methodId);
    return {};
  }

  // ---- sessions ---------------------------------------------------------------

  private session(sessionId: string): SessionRuntime {
    const s = this.sessions.get(sessionId);
    if (!s) throw AcpError.sessionNotFound(sessionId);
    return s;
  }

  private async newSession(p: NewSessionRequest): Promise<NewSessionResponse> {
    checkRoots(p.cwd, p.additionalDirectories);
    this.checkMcp(p.mcpServers ?? []);
    const sessionId = `sess_${randomUUID().replace(/-/g, '')}`;
    const additionalDirectories = [...(p.additionalDirectories ?? [])];
    const created = this.store.create({
      sessionId,
      cwd: p.cwd,
      additionalDirectories,
      createdAt: new Date().toISOString(),
      title: null,
    });
    // an asynchronous store: the session exists once it is persisted (a failure refuses session/new with the store's reason)
    if (isPending(created)) await created.catch((e: unknown) => Promise.reject(storeError(e)));
    this.store.acquire?.(sessionId);
    const s = new SessionRuntime(this.negotiatedHost, {
      sessionId,
      cwd: p.cwd,
      additionalDirectories,
      mcpServers: p.mcpServers ?? [],
      restored: false,
    });
    let setup: SessionSetup | void;
    try {
      setup = await this.definition.openSession?.(s, { restored: false, history: [] });
    } catch (e) {
      await this.store.delete(sessionId).catch(() => undefined);
      this.store.release?.(sessionId);
      throw e;
    }
    s.openWith(setup?.configOptions ?? []);
    this.sessions.set(sessionId, s);
    if (this.sharing) this.sharing.add(s);
    else this.options.sharedSessions?.hold(s);
    return { sessionId, ...this.setupResult(s, setup) };
  }

  /** v1 `session/load` (full replay, ACP-V1-LOAD-02/03) and `session/resume` (v1 none; v2 per `replayFrom`). */
  private async restore(
    p: LoadSessionRequest | ResumeSessionRequest,
    kind: 'load' | 'resume',
  ): Promise<SessionSetupResult> {
    checkRoots(p.cwd, p.additionalDirectories);
    this.checkMcp(p.mcpServers ?? []);
    const replay = this.negotiated.replays(kind, p);
    // a connection that dropped may still be closing this session (its turn ending, its history
    // being written): restore what it leaves behind, not a half-written history beside it
    if (!this.sessions.has(p.sessionId)) await this.options.sharedSessions?.whenClosed(p.sessionId);
    let existing = this.sessions.get(p.sessionId);
    let shared = existing ? undefined : this.sharing?.get(p.sessionId);
    // a runtime whose store failed refuses every prompt from then on and never settles (its failed
    // writes stay unpersisted): the session opens afresh from what the store holds now, and the
    // failed runtime is left to the clients still on it (their next resume moves them here too)
    const failed = shared?.storeFailed ? shared : existing?.storeFailed ? existing : undefined;
    const unstoredEnd = failed?.unstoredTurnEnd;
    if (failed) {
      if (failed === shared) {
        this.options.sharedSessions?.delete(shared);
        shared = undefined;
      } else {
        await this.leave(failed, 'reopening the session after its store failed');
        existing = undefined;
        // another connection may have reopened it already: attach to that one
        shared = this.sharing?.get(p.sessionId);
      }
    }
    // open on another connection of this process: attach to it rather than open a second runtime
    if (shared) return this.join(shared, p, kind, replay);
    // one writer per stored session: refused while another process has it open (already ours when
    // open here), or another connection of this process has it open unshared (v1 twins)
    if (!existing) await this.refuseTwin(p.sessionId);
    if (!existing) this.store.acquire?.(p.sessionId);
    try {
      return await this.restoreLocked(p, kind, replay, existing, unstoredEnd);
    } catch (e) {
      if (!existing) this.store.release?.(p.sessionId);
      throw e;
    }
  }

  /** `unstoredEnd`: the end of a turn whose store failed, for clients on other instances (stored after the read, which clears the store's failure). */
  private async restoreLocked(
    p: LoadSessionRequest | ResumeSessionRequest,
    kind: 'load' | 'resume',
    replay: boolean,
    existing: SessionRuntime | undefined,
    unstoredEnd?: StateUpdate,
  ): Promise<SessionSetupResult> {
    // an asynchronous store: read once what is stored was also sent (a replay must not repeat held output)
    if (existing && !existing.quiescent) await existing.whenPersisted();
    const stored = await this.store.load(p.sessionId);
    if (!stored) throw AcpError.sessionNotFound(p.sessionId);
    if (unstoredEnd && this.store.appendLive)
      await Promise.resolve(this.store.appendLive(p.sessionId, unstoredEnd)).catch((e: unknown) =>
        Promise.reject(storeError(e)),
      );
    if (existing && (kind === 'resume' || existing.attachedCount > 1) && sameSetup(existing, p)) {
      // already open here with the same roots and MCP servers (or shared with other clients, which
      // a reopen would cut off): keep it (and its running turn);
      // replay through a fresh encoder. Another setup reopens it below like `session/load`, so
      // `openSession` sees the request's complete `mcpServers` list (ACP-V2-RESUME-09).
      if (replay)
        await this.replay(
          existing,
          stored,
          this.negotiatedCodec.createUpdateEncoder({
            clientCapabilities: this.client.capabilities,
            configOptions: existing.configOptions,
          }),
        );
      this.negotiated.restored(this.viewFor(existing, existing.attachmentOf(this.negotiatedHost)));
      return this.setupResult(existing, undefined);
    }
    if (existing && existing.attachedCount > 1) throw sharedSetupMismatch(p.sessionId);
    if (existing) {
      // the lock stays: the reopened runtime takes it over
      this.sessions.delete(p.sessionId);
      await existing.close('reopening the session');
    }
    const additionalDirectories = [...(p.additionalDirectories ?? [])];
    const s = new SessionRuntime(this.negotiatedHost, {
      sessionId: p.sessionId,
      cwd: p.cwd,
      additionalDirectories,
      mcpServers: p.mcpServers ?? [],
      restored: true,
    });
    const history = stored.updates.filter(isHistoryUpdate);
    const setup = await this.definition.openSession?.(s, { restored: true, history });
    s.openWith(restoreValues(setup?.configOptions ?? [], stored.meta.configValues));
    if (replay) await this.replay(s, stored);
    else for (const u of stored.updates) if (isHistoryUpdate(u)) s.prime(u);
    // the state snapshot is this connection's alone (not a live update of the session for other instances' clients)
    this.negotiated.restored(this.viewFor(s, s.attachmentOf(this.negotiatedHost)));
    this.sessions.set(p.sessionId, s);
    if (this.sharing) this.sharing.add(s);
    else this.options.sharedSessions?.hold(s);
    return this.setupResult(s, setup, true);
  }

  /**
   * One writer per session inside this process. A runtime another connection holds alone (v1) is
   * taken over when idle: that connection may be gone without the server knowing yet (a client
   * reconnecting after its side dropped), and its next request on the session finds none. While
   * its turn runs, or beside a session v2 clients share (from a v1 connection), the open is
   * refused with the answer the store's lock gives for another process (SESSION_LOCKED).
   */
  private async refuseTwin(sessionId: string): Promise<void> {
    const registry = this.options.sharedSessions;
    const held = registry?.holder(sessionId);
    const other = held ?? (this.sharing ? undefined : registry?.get(sessionId));
    if (!registry || !other || other.closed) return;
    if (other !== held || other.busy)
      throw new AcpError(
        SESSION_LOCKED,
        `Session ${sessionId} is open on another connection of this server${other.busy ? ' with a turn running' : ''}; close it there first`,
        { sessionId },
      );
    registry.delete(other);
    const closed = other.close('taken over by another connection').finally(() => this.store.release?.(sessionId));
    registry.closingUntil(sessionId, closed);
    await closed;
  }

  /** The shared-session registry, when this connection's version shares sessions. */
  private get sharing(): SharedSessions | undefined {
    return this.lifecycle?.sharesSessions ? this.options.sharedSessions : undefined;
  }

  /**
   * A client attaching to a session another connection has open ({@link SharedSessions}): the
   * history (when asked) as it stood at the moment of attaching, then its foreground state, then
   * every live update from that moment on, held while the replay is written, so it misses none
   * and sees them in the same order as the other clients. The store lock stays with the process.
   */
  private async join(
    s: SessionRuntime,
    p: LoadSessionRequest | ResumeSessionRequest,
    kind: 'load' | 'resume',
    replay: boolean,
  ): Promise<SessionSetupResult> {
    if (!sameSetup(s, p)) throw sharedSetupMismatch(p.sessionId);
    let stored: StoredSession | undefined;
    if (replay) {
      // the history and the attach must describe the same moment: load again when it moved meanwhile
      for (let attempt = 0; ; attempt++) {
        // an asynchronous store: read when every write so far is persisted and sent, so the history
        // read is exactly what the attached clients were sent (no update missed, none twice)
        if (!s.quiescent) await s.whenPersisted();
        const version = s.historyVersion;
        const quiescent = s.quiescent;
        stored = await this.store.load(p.sessionId);
        if (quiescent && s.historyVersion === version) break;
        if (attempt >= MAX_JOIN_LOADS) {
          throw AcpError.internal(
            `session ${p.sessionId} kept changing while its history was read (${MAX_JOIN_LOADS} tries); resume it again`,
          );
        }
      }
      if (!stored) throw AcpError.sessionNotFound(p.sessionId);
    }
    // closed meanwhile (its last client left): open it afresh instead
    if (s.closed || this.sharing?.get(p.sessionId) !== s) return this.restore(p, kind);
    const attachment = s.attach(this.negotiatedHost, true);
    this.sessions.set(p.sessionId, s);
    try {
      // the state as of attaching goes first among the held live updates
      this.negotiated.restored(this.viewFor(s, attachment));
      if (stored)
        await this.replay(
          s,
          stored,
          this.negotiatedCodec.createUpdateEncoder({
            clientCapabilities: this.client.capabilities,
            configOptions: s.configOptions,
          }),
        );
    } finally {
      s.activate(attachment);
    }
    return this.setupResult(s, undefined);
  }

  /** `s` as the lifecycle sees it, its live updates going to this connection's attachment only. */
  private viewFor(s: SessionRuntime, attachment: SessionAttachment | undefined): LifecycleSession {
    if (!attachment) return s;
    return {
      get configOptions() {
        return s.configOptions;
      },
      stateSnapshot: () => s.stateSnapshot(),
      sendLive: (u) => s.sendLiveTo(attachment, u),
    };
  }

  /**
   * This connection is done with `s` (`session/close`, its end): a session other connections
   * still use only loses this attachment (its turn goes on for them); otherwise it is closed and
   * its store lock given back.
   */
  private async leave(s: SessionRuntime, reason: string): Promise<void> {
    if (this.sessions.get(s.sessionId) === s) this.sessions.delete(s.sessionId);
    const mine = this.host ? s.attachmentOf(this.host) : undefined;
    if (s.attachedCount > (mine ? 1 : 0)) {
      if (mine) s.detach(mine.host);
      return;
    }
    const registry = this.options.sharedSessions;
    registry?.delete(s);
    const closed = s.close(reason).finally(() => this.store.release?.(s.sessionId));
    registry?.closingUntil(s.sessionId, closed);
    await closed;
  }

  /**
   * Sends the stored history, re-encoded for this connection's version (a v2-recorded session
   * replays to v1 and back); with `encoder` given, through it instead of the session's own.
   * The lifecycle adds what a version's replay needs before an update (v2 primers).
   */
  private async replay(s: SessionRuntime, stored: StoredSession, encoder?: UpdateEncoder): Promise<void> {
    const lifecycle = this.negotiated;
    await replayHistory(
      {
        sessionId: s.sessionId,
        lifecycle,
        encoder: encoder ?? s.encoder,
        validator: (this.replayValidator ??= getValidator(lifecycle.version)),
        logger: this.logger,
        notify: (wire) => this.peer.notify(Methods.sessionUpdate, { sessionId: s.sessionId, update: wire }),
        whenWritable: () => this.peer.whenWritable(),
        noteSent: encoder ? undefined : (u) => s.noteSent(u),
      },
      stored,
    );
  }

  /** The session/new, load or resume result (its shape per version is the lifecycle's). */
  private setupResult(s: SessionRuntime, setup: SessionSetup | void, restored = false): SessionSetupResult {
    return this.negotiated.setupResult(s, this.visibleConfig(s.configOptions), setup?.availableCommands, restored);
  }

  private visibleConfig(list: readonly ConfigOption[]): ConfigOption[] {
    return this.negotiated.visibleConfig(list, this.client.capabilities);
  }

  private async closeSession(p: SessionIdRequest): Promise<EmptyResult> {
    const s = this.sessions.get(p.sessionId);
    if (!s) {
      this.negotiated.closeUnknownSession(p.sessionId);
      return {};
    }
    await this.leave(s, 'session/close');
    return {};
  }

  private async deleteSession(p: SessionIdRequest): Promise<EmptyResult> {
    const s = this.sessions.get(p.sessionId);
    if (s) {
      // deleted for every client sharing it
      this.sessions.delete(p.sessionId);
      this.options.sharedSessions?.delete(s);
      await s.close('session/delete');
    }
    try {
      await this.store.delete(p.sessionId);
    } finally {
      if (s) this.store.release?.(p.sessionId);
    }
    return {};
  }

  // ---- unstable session methods (served only when advertised: isServed) ----------

  private async listSessions(p: ListSessionsRequest): Promise<ListSessionsResponse> {
    const archive = !!this.capabilities(this.negotiated).session?.archive;
    const keep = archiveFilter(p.archived);
    return listPage((await this.store.list()).filter(keep), p.cwd, p.cursor, undefined, archive);
  }

  /**
   * The runtime of a session in memory in this process: open on this connection, shared by v2
   * connections, or held by another (v1) connection alone; the unstable methods act on it there.
   */
  private openRuntime(sessionId: string): SessionRuntime | undefined {
    const registry = this.options.sharedSessions;
    const s = this.sessions.get(sessionId) ?? registry?.get(sessionId) ?? registry?.holder(sessionId);
    return s && !s.closed ? s : undefined;
  }

  /** `session/fork`: a copy of the stored session under a new id, opened here like a new session. */
  private async forkSession(p: ForkSessionRequest): Promise<ForkSessionResponse> {
    checkRoots(p.cwd, p.additionalDirectories);
    this.checkMcp(p.mcpServers ?? []);
    // an open source's history as sent so far (an asynchronous store may still be writing it)
    await this.openRuntime(p.sessionId)?.whenPersisted();
    const sessionId = `sess_${randomUUID().replace(/-/g, '')}`;
    const additionalDirectories = [...(p.additionalDirectories ?? [])];
    const meta = { sessionId, cwd: p.cwd, additionalDirectories, createdAt: new Date().toISOString(), title: null };
    const forked = await forkStored(this.store, p.sessionId, meta).catch((e: unknown) => Promise.reject(storeError(e)));
    if (!forked) throw AcpError.sessionNotFound(p.sessionId);
    const stored = await this.store.load(sessionId);
    if (!stored) throw AcpError.sessionNotFound(sessionId);
    this.store.acquire?.(sessionId);
    const s = new SessionRuntime(this.negotiatedHost, {
      sessionId,
      cwd: p.cwd,
      additionalDirectories,
      mcpServers: p.mcpServers ?? [],
      restored: true,
    });
    const history = stored.updates.filter(isHistoryUpdate);
    let setup: SessionSetup | void;
    try {
      setup = await this.definition.openSession?.(s, { restored: true, history, forkedFrom: p.sessionId });
    } catch (e) {
      this.store.release?.(sessionId);
      throw e;
    }
    s.openWith(restoreValues(setup?.configOptions ?? [], stored.meta.configValues));
    for (const u of history) s.prime(u);
    this.sessions.set(sessionId, s);
    if (this.sharing) this.sharing.add(s);
    else this.options.sharedSessions?.hold(s);
    return { sessionId, ...this.setupResult(s, setup) };
  }

  /**
   * `session/archive` closes an open session for every client first, as `session/close` would
   * (the schema's MUST), then records the flag; archiving twice succeeds. Unknown: -32002.
   */
  private async setArchived(p: SessionIdRequest, archived: boolean): Promise<EmptyResult> {
    const s = archived ? this.openRuntime(p.sessionId) : undefined;
    if (s) {
      this.sessions.delete(p.sessionId);
      this.options.sharedSessions?.delete(s);
      await s.close('session/archive').finally(() => this.store.release?.(p.sessionId));
    }
    const known = await this.store.setArchived?.(p.sessionId, archived);
    if (!known) throw AcpError.sessionNotFound(p.sessionId);
    return {};
  }

  /** `session/status`: no side effects; `open` with the foreground state (v2 carries it), else `saved`. */
  private async sessionStatus(p: SessionIdRequest): Promise<SessionStatusResponse> {
    const s = this.openRuntime(p.sessionId);
    if (s) {
      const { sessionUpdate: _tag, ...state } = s.stateSnapshot();
      return { status: 'open', state };
    }
    if (!(await storedMeta(this.store, p.sessionId))) throw AcpError.sessionNotFound(p.sessionId);
    return { status: 'saved' };
  }

  /**
   * `session/set_title`: answered once the title is stored. An open session sends it to every
   * attached client as a `session_info_update` (which is also how it is stored); a session that is
   * not open gets the update in its stored history only.
   */
  private async setTitle(p: SetSessionTitleRequest): Promise<SetSessionTitleResponse> {
    const custom = this.definition.sessionMethods?.title;
    const s = this.openRuntime(p.sessionId);
    const title = typeof custom === 'function' ? custom(p.title, s) : normalizeTitle(p.title);
    const update = { sessionUpdate: 'session_info_update' as const, title, updatedAt: new Date().toISOString() };
    if (s) {
      s.emit(update);
      await s.whenPersisted();
      if (s.storeFailed) throw storeError(new Error('the title could not be stored'));
    } else {
      if (!(await storedMeta(this.store, p.sessionId))) throw AcpError.sessionNotFound(p.sessionId);
      await Promise.resolve(this.store.append(p.sessionId, update)).catch((e: unknown) =>
        Promise.reject(storeError(e)),
      );
    }
    return { title };
  }

  private async prompt(p: PromptRequest, ctx: RequestContext): Promise<PromptResponse> {
    const s = this.session(p.sessionId);
    // a turn started now would only be cancelled by the shutdown waiting for the turns to end: the
    // prompt is answered as one held when the turns were cancelled (v1 `cancelled`, v2 -32800)
    if (this.draining) {
      const lifecycle = this.negotiated;
      return new Promise<PromptResponse>((resolve, reject) =>
        lifecycle.cancelHeld(
          { prompt: p.prompt, resolve, reject, detach: () => undefined },
          'the agent shutting down (it was not started)',
        ),
      );
    }
    if (!Array.isArray(p.prompt) || (!this.negotiated.allowsEmptyPrompt && p.prompt.length === 0)) {
      throw AcpError.invalidParams('params.prompt: must contain at least one content block (ACP-V2-LIFE-14)', {
        path: 'params.prompt',
      });
    }
    const deep = tooDeep(p.prompt, 'params.prompt', MAX_PROMPT_DEPTH);
    if (deep)
      throw AcpError.invalidParams(
        `${deep}: nested deeper than ${MAX_PROMPT_DEPTH} levels (a prompt this deep cannot be stored or replayed)`,
        { path: deep },
      );
    this.checkPromptContent(p.prompt);
    return s.prompt(p.prompt, ctx.signal);
  }

  /**
   * Content the agent did not advertise is refused before insertion (ACP-V2-CONT-01,
   * ACP-ALL-CONT-01/02): `text` and `resource_link` always pass; `image`, `audio` and `resource`
   * need the `prompt` capability; any other block type is not supported.
   */
  private checkPromptContent(prompt: readonly unknown[]): void {
    const caps = this.definition.capabilities?.prompt ?? {};
    prompt.forEach((block, i) => {
      const type = isObj(block) ? block.type : undefined;
      if (type === 'text' || type === 'resource_link') return;
      const needs =
        type === 'image' ? 'image' : type === 'audio' ? 'audio' : type === 'resource' ? 'embeddedContext' : undefined;
      const path = `params.prompt[${i}]`;
      if (!needs) {
        throw AcpError.invalidParams(
          `${path}.type: content type ${JSON.stringify(type)} is not supported by this agent (ACP-V2-CONT-01)`,
          { path },
        );
      }
      if (!caps[needs]) {
        throw AcpError.invalidParams(
          `${path}: ${type} content needs the prompt capability "${needs}", which this agent does not advertise (ACP-ALL-CONT-02)`,
          { path },
        );
      }
    });
  }

  private checkMcp(servers: readonly McpServer[]): void {
    const mcp = this.definition.capabilities?.mcp ?? {};
    const lifecycle = this.negotiated;
    servers.forEach((server, i) => {
      // (a JavaScript caller's server may lack `type`: stdio, the v1 default)
      const type: string = server.type ?? 'stdio';
      if (!lifecycle.mcpServerAllowed(type, mcp)) {
        throw AcpError.invalidParams(
          `params.mcpServers[${i}].type: this agent does not support ${JSON.stringify(type)} MCP servers (ACP-V2-SESS-03)`,
          {
            path: `params.mcpServers[${i}].type`,
          },
        );
      }
    });
  }

  // ---- wire helpers -----------------------------------------------------------

  private makeHost(lifecycle: AgentLifecycle, codec: WireCodec): AgentSessionHost {
    return new AgentConnectionImpl.Host(this, lifecycle, codec);
  }

  /**
   * A connection as its sessions see it. A class (methods on its prototype, settings read from the
   * connection) rather than an object of closures: ~500 bytes less for every connection, and it
   * sits in the connection's class body so that it may call the connection's private methods.
   */
  private static readonly Host = class ConnectionHost implements AgentSessionHost {
    constructor(
      private readonly conn: AgentConnectionImpl,
      readonly lifecycle: AgentLifecycle,
      readonly codec: WireCodec,
    ) {}
    get definition(): AgentDefinition {
      return this.conn.definition;
    }
    get store(): SessionStore {
      return this.conn.store;
    }
    get logger(): AgentLogger {
      return this.conn.logger;
    }
    get client(): ClientPeerInfo {
      return this.conn.client;
    }
    get maxHeldPrompts(): number {
      return this.conn.options.maxHeldPrompts ?? DEFAULT_MAX_HELD;
    }
    get cancelTimeoutMs(): number {
      return this.conn.options.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT;
    }
    get mcpOverAcp(): McpOverAcpChannel {
      return this.conn.mcpRoutes;
    }
    sendWires(sessionId: string, wires: readonly object[]): void {
      this.conn.writeWires(sessionId, wires);
    }
    askPermission(s: SessionRuntime, q: PermissionQuestion, signal: AbortSignal): Promise<PermissionOutcome> {
      return this.conn.askPermission(this.codec, s, q, signal);
    }
    elicit(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
      return this.conn.requestClient(this.codec, Methods.elicitationCreate, params, signal);
    }
    completeElicitation(elicitationId: string): void {
      this.conn.notifyClient(this.codec, Methods.elicitationComplete, { elicitationId });
    }
    whenWritable(): Promise<void> {
      return this.conn.peer.whenWritable();
    }
    clientServices(sessionId: string): ClientServices {
      return this.conn.clientServices(this.codec, sessionId);
    }
    sessionEnded(s: SessionRuntime): void {
      if (this.conn.sessions.get(s.sessionId) === s) this.conn.sessions.delete(s.sessionId);
    }
  };

  /**
   * Writes updates the session encoded (what a version cannot show, e.g. v1's `state_update`,
   * its encoder dropped: the codec is the one place).
   */
  private writeWires(sessionId: string, wires: readonly object[]): void {
    for (const wire of wires) {
      this.checkOutgoing('update', Methods.sessionUpdate, wire);
      this.peer.notify(Methods.sessionUpdate, { sessionId, update: wire });
    }
  }

  private async askPermission(
    codec: WireCodec,
    s: SessionRuntime,
    q: PermissionQuestion,
    signal: AbortSignal,
  ): Promise<PermissionOutcome> {
    const req: PermissionRequest = { sessionId: s.sessionId, title: q.title, options: q.options };
    if (q.description != null) req.description = q.description;
    if (q.subject != null) req.subject = q.subject;
    const res = await this.requestClient(codec, Methods.requestPermission, req, signal);
    return res.outcome;
  }

  private async requestClient<M extends ClientMethod>(
    codec: WireCodec,
    method: M,
    params: ParamsOf<M>,
    signal?: AbortSignal,
  ): Promise<ResultOf<M>> {
    const wireMethod = codec.wireMethod(method);
    if (!wireMethod) throw AcpError.methodNotFound(`${method} (not part of protocol v${codec.version})`);
    const wire = codec.encodeParams(method, params);
    this.checkOutgoing('params', wireMethod, wire);
    const result = await this.peer.request(wireMethod, wire, { signal, onAbort: 'reject' });
    return codec.decodeResult(method, result);
  }

  /** Sends an agent-to-client notification in the connection's wire format (checked like a request). */
  private notifyClient<M extends keyof ClientNotifications>(
    codec: WireCodec,
    method: M,
    params: ClientNotifications[M],
  ): void {
    const wireMethod = codec.wireMethod(method);
    if (!wireMethod || this.peer.isClosed) return;
    const wire = codec.encodeParams(method, params);
    this.checkOutgoing('params', wireMethod, wire);
    this.peer.notify(wireMethod, wire);
  }

  private clientServices(codec: WireCodec, sessionId: string): ClientServices {
    return this.negotiated.clientServices(this.client.capabilities, sessionId, (method, params, signal) =>
      this.requestClient(codec, method, params, signal),
    );
  }

  /** `validateOutgoing`: a message that breaks the schema is a bug in this agent; fail loudly. */
  private checkOutgoing(kind: 'result' | 'params' | 'update', method: string, wire: unknown): void {
    const v = this.validator;
    if (!v) return;
    const failure =
      kind === 'result' ? v.result(method, wire) : kind === 'params' ? v.params(method, wire) : v.update(wire);
    if (failure && failure !== 'unknown') {
      const what = kind === 'update' ? 'session/update update' : `${method} ${kind}`;
      const msg = `outgoing ${what} violates the v${v.version} schema at ${failure.path}: ${failure.message}`;
      this.logger.error(msg);
      throw AcpError.internal(msg, { path: failure.path });
    }
  }
}

/** How often a joiner's history is read again because the session moved meanwhile. */
const MAX_JOIN_LOADS = 20;

/** A restore of a session shared by other clients must not reopen it under them. */
function sharedSetupMismatch(sessionId: string): AcpError {
  return AcpError.invalidParams(
    `params: session ${sessionId} is open on another connection with another cwd, additionalDirectories or mcpServers; resume it with the same ones to share it, or close it there first`,
    { path: 'params' },
  );
}

/** Whether a restore request names the open session's own cwd, directories and MCP servers. */
function sameSetup(s: SessionRuntime, p: LoadSessionRequest | ResumeSessionRequest): boolean {
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  return (
    s.cwd === p.cwd &&
    same(s.additionalDirectories, p.additionalDirectories ?? []) &&
    same(s.mcpServers, p.mcpServers ?? [])
  );
}

/** How deep a prompt may nest (blocks, `_meta`, resources): far beyond real content, far below the stack limit. */
const MAX_PROMPT_DEPTH = 64;

/** The path of the first value nested deeper than `max` below `root`, else `undefined` (iterative: no stack to overflow). */
function tooDeep(root: unknown, rootPath: string, max: number): string | undefined {
  const stack: Array<[unknown, string, number]> = [[root, rootPath, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, path, depth] = top;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return path;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, `${path}[${i}]`, depth + 1]));
    else
      for (const [k, x] of Object.entries(v))
        stack.push([x, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, depth + 1]);
  }
  return undefined;
}

const SEPARATORS = process.platform === 'win32' ? /[\\/]/ : /\//;

/**
 * A session root as the client sent it: absolute (ACP-ALL-SESS-03, ACP-ALL-SESS-07), no NUL byte,
 * no `.`/`..` segment. Never normalised here: `/w/../etc` silently becoming `/etc` would widen the
 * roots the client thinks it granted, so such paths are refused instead.
 */
function rootProblem(p: unknown): string | undefined {
  if (typeof p !== 'string' || p.length === 0) return 'must be a non-empty absolute path';
  if (p.includes('\0')) return 'must be an absolute path without NUL bytes';
  if (!isAbsolute(p)) return 'must be an absolute path';
  if (p.split(SEPARATORS).some((seg) => seg === '..' || seg === '.'))
    return 'must be an absolute path without "." or ".." segments (it is not normalised)';
  return undefined;
}

const quote = (p: unknown): string => {
  const s = JSON.stringify(p) ?? String(p);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

/** `cwd` and `additionalDirectories` entries pass {@link rootProblem}; -32602 naming the field otherwise. */
function checkRoots(cwd: unknown, dirs: unknown): void {
  const bad = rootProblem(cwd);
  if (bad) throw AcpError.invalidParams(`params.cwd: ${bad} (got ${quote(cwd)})`, { path: 'params.cwd' });
  if (dirs === undefined || dirs === null) return;
  if (!Array.isArray(dirs))
    throw AcpError.invalidParams('params.additionalDirectories: must be an array of absolute paths', {
      path: 'params.additionalDirectories',
    });
  dirs.forEach((d, i) => {
    const problem = rootProblem(d);
    if (problem) {
      throw AcpError.invalidParams(`params.additionalDirectories[${i}]: ${problem} (got ${quote(d)})`, {
        path: `params.additionalDirectories[${i}]`,
      });
    }
  });
}

import { randomUUID } from '../protocol/lazy-crypto.js';
import { isAbsolute } from 'node:path';
import { agentMethodSupported, codecFor } from '../protocol/codec/index.js';
import type { UpdateEncoder, WireCodec } from '../protocol/codec/types.js';
import { AcpError } from '../protocol/errors.js';
import type {
  AuthenticateRequest, InitializeRequest, InitializeResponse,
  LoadSessionRequest, NewSessionRequest, PromptRequest, ResumeSessionRequest, SessionIdRequest,
  SessionSetupResult,
} from '../protocol/model/methods.js';
import { Methods, type AgentMethod, type ClientMethod, type EmptyResult, type NewSessionResponse, type ParamsOf, type PromptResponse, type ResultOf } from '../protocol/model/methods.js';
import type { AgentCapabilities, ConfigOption, McpServer, PermissionOutcome, PermissionRequest } from '../protocol/model/session.js';
import type { AnySessionUpdate, SessionUpdate } from '../protocol/model/update.js';
import { getValidator } from '../protocol/validation/index.js';
import type { WireValidator } from '../protocol/validation/types.js';
import { negotiateVersion, SUPPORTED_VERSIONS, type ProtocolVersion } from '../protocol/version.js';
import { JsonRpcPeer, type PeerOptions, type RequestContext } from '../rpc/peer.js';
import type { CloseInfo, Transport } from '../rpc/transport.js';
import { createClientServices } from './client-services.js';
import { modesOf, restoreValues } from './config-options.js';
import { stderrLogger, type AgentLogger } from './logger.js';
import { listPage } from './session-list.js';
import { SessionRuntime, type SessionHost } from './session-runtime.js';
import { InMemorySessionStore, isHistoryUpdate, type SessionStore, type StoredSession } from './session-store.js';
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
   * For an input that has ended (the client closed its side): cancels every running turn, then
   * resolves once each request received so far has been answered, or after `timeoutMs` (default
   * 5000). Resolves `true` when nothing was left unanswered. The connection stays open: call
   * {@link close} afterwards.
   */
  drain(timeoutMs?: number): Promise<boolean>;
}

/**
 * Serves `definition` as an ACP agent on `transport`, speaking v1 or v2 as the client's
 * `initialize` negotiates (ACP-ALL-INIT-03). The author writes against the neutral model once;
 * this runtime owns the protocol: version negotiation, sessions and their durable history,
 * the per-version prompt lifecycle, cancellation and replay.
 */
export function serveAgent(definition: AgentDefinition, transport: Transport, options: ServeAgentOptions = {}): AgentConnection {
  return new AgentConnectionImpl(definition, transport, options);
}

/** The requests the runtime dispatches (`initialize` is answered before there is a codec). */
type ServedMethod = Exclude<AgentMethod, 'initialize'>;
type AgentHandler<M extends ServedMethod> = (params: ParamsOf<M>, ctx: RequestContext) => ResultOf<M> | Promise<ResultOf<M>>;
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
  private version: ProtocolVersion | undefined;
  private codec: WireCodec | undefined;
  private validator: WireValidator | undefined;
  private client: ClientPeerInfo = { protocolVersion: 2, info: null, capabilities: {} };
  private otherRequestSeen = false;
  private readonly sessions = new Map<string, SessionRuntime>();
  private host: SessionHost | undefined;
  /** Requests received and not yet answered (drained at the end of input). */
  private inFlight = 0;
  private replayValidator: WireValidator | undefined;
  private neutralCheck: { encoder: UpdateEncoder; validator: WireValidator } | undefined;
  private onAnswered: (() => void) | undefined;

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
      const all = [...this.sessions.values()];
      this.sessions.clear();
      await Promise.all(all.map((s) => s.close('the connection ending')));
      for (const s of all) this.store.release?.(s.sessionId);
      return info;
    });
  }

  get protocolVersion(): ProtocolVersion | undefined {
    return this.version;
  }

  close(): void {
    this.peer.close({ reason: 'closed by the agent' });
  }

  async drain(timeoutMs = DEFAULT_DRAIN_TIMEOUT): Promise<boolean> {
    // the client can send nothing more (no cancel, no permission answer): end the turns now, so
    // open v1 prompts are answered `cancelled` instead of running on unseen
    for (const s of this.sessions.values()) s.cancel('the end of the input');
    if (this.inFlight === 0) return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.onAnswered = undefined;
        resolve(ok);
      };
      const timer = setTimeout(() => {
        this.logger.warn(`input ended: ${this.inFlight} request(s) still unanswered after ${timeoutMs} ms; closing anyway`);
        done(false);
      }, timeoutMs);
      this.onAnswered = () => {
        if (this.inFlight === 0) done(true);
      };
    });
  }

  // ---- dispatch -------------------------------------------------------------

  private async onRequest(wireMethod: string, params: unknown, ctx: RequestContext): Promise<unknown> {
    if (wireMethod === Methods.initialize) return this.initialize(params);
    const codec = this.codec;
    if (!codec) throw AcpError.invalidRequest(`"initialize" must complete before any other request (got "${wireMethod}")`);
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
   * connection serves is {@link isServed}'s question, not the handlers'.
   */
  private readonly handlers: AgentHandlers = {
    authenticate: (p) => this.authenticate(p),
    logout: async () => {
      await this.definition.logout?.();
      return {};
    },
    'session/new': (p) => this.newSession(p),
    'session/load': (p) => this.restore(p, 'load'),
    'session/resume': (p) => this.restore(p, 'resume'),
    'session/list': async (p) => listPage(await this.store.list(), p.cwd, p.cursor),
    'session/close': (p) => this.closeSession(p),
    'session/delete': (p) => this.deleteSession(p),
    'session/set_config_option': async (p) => ({ configOptions: this.visibleConfig(await this.session(p.sessionId).setConfigOption(p.configId, p.value)) }),
    'session/set_mode': async (p) => {
      await this.session(p.sessionId).setMode(p.modeId);
      return {};
    },
    'session/prompt': (p, ctx) => this.prompt(p, ctx),
    'tool_call/cancel': async (p) => {
      await this.session(p.sessionId).cancelEntity('tool_call', p.toolCallId);
      return {};
    },
    'terminal/cancel': async (p) => {
      await this.session(p.sessionId).cancelEntity('terminal', p.terminalId);
      return {};
    },
  };

  private async dispatch<M extends ServedMethod>(codec: WireCodec, method: M, params: unknown, ctx: RequestContext): Promise<unknown> {
    const handler: AgentHandler<M> = this.handlers[method];
    const result = await handler(codec.decodeParams(method, params), ctx);
    const wire = codec.encodeResult(method, result);
    this.checkOutgoing('result', codec.wireMethod(method) ?? method, wire);
    return wire;
  }

  /**
   * Whether this connection serves `method`: a handled method that this version has and this
   * agent advertises ({@link agentMethodSupported}, the same rule the client applies).
   */
  private isServed(method: string): method is ServedMethod {
    if (!Object.hasOwn(this.handlers, method)) return false;
    return agentMethodSupported(method as ServedMethod, this.version!, this.capabilities(), this.definition.authMethods ?? []);
  }

  private async onNotification(wireMethod: string, params: unknown): Promise<void> {
    const codec = this.codec;
    if (!codec) return; // ignored before initialize (like the official router)
    if (wireMethod.startsWith('_')) {
      await this.definition.extNotification?.(wireMethod, params);
      return;
    }
    if (codec.neutralMethod(wireMethod) !== Methods.sessionCancel) return;
    let p: SessionIdRequest;
    try {
      p = codec.decodeParams(Methods.sessionCancel, params);
    } catch (e) {
      this.logger.warn(`ignored malformed session/cancel: ${(e as Error).message}`);
      return;
    }
    const s = this.sessions.get(p.sessionId);
    if (s) s.cancel('session/cancel');
    else this.logger.debug(`session/cancel for unknown session ${p.sessionId} ignored`);
  }

  // ---- initialize / auth ------------------------------------------------------

  private initialize(params: unknown): unknown {
    if (this.otherRequestSeen) throw AcpError.invalidRequest('"initialize" may only be repeated before any other request');
    if (params === null || typeof params !== 'object' || Array.isArray(params)) throw AcpError.invalidParams('params must be an object with "protocolVersion"', { path: 'params' });
    const requested = (params as { protocolVersion?: unknown }).protocolVersion;
    const version = negotiateVersion(requested, this.supported) as ProtocolVersion;
    const codec = codecFor(version);
    // read the params in the shape the client sent them (a v2 client answered with v1 still sent v2 params)
    const sentShape: ProtocolVersion = (requested as number) >= 2 ? 2 : 1;
    let req: InitializeRequest;
    try {
      req = codecFor(sentShape).decodeParams(Methods.initialize, params);
    } catch (e) {
      // a newer-than-known client: lenient, like the official router
      if ((requested as number) <= 2) throw e;
      req = { protocolVersion: requested as number, clientCapabilities: {} };
    }
    this.version = version;
    this.codec = codec;
    this.validator = this.options.validateOutgoing ? getValidator(version) : undefined;
    this.client = { protocolVersion: version, info: req.clientInfo ?? null, capabilities: req.clientCapabilities ?? {} };
    this.host = this.makeHost(codec);
    const res: InitializeResponse = {
      protocolVersion: version,
      agentInfo: this.definition.info,
      agentCapabilities: this.capabilities(),
      authMethods: (this.definition.authMethods ?? []).filter((m) => m.type !== 'terminal' || !!this.client.capabilities.authTerminal),
    };
    const wire = codec.encodeResult(Methods.initialize, res);
    this.checkOutgoing('result', Methods.initialize, wire);
    return wire;
  }

  private capabilities(): AgentCapabilities {
    const c = this.definition.capabilities ?? {};
    const caps: AgentCapabilities = {
      loadSession: this.durable,
      session: {
        list: this.durable || this.version === 2,
        resume: this.durable || this.version === 2,
        close: true,
        delete: this.durable,
        additionalDirectories: true,
      },
      // v2 has no marker: auth/logout exists exactly when there are auth methods (ACP-V2-AUTH-02)
      logout: this.version === 1 ? !!this.definition.logout : (this.definition.authMethods?.length ?? 0) > 0,
    };
    if (c.prompt) caps.prompt = c.prompt;
    if (c.mcp) caps.mcp = c.mcp;
    if (c._meta) caps._meta = c._meta;
    return caps;
  }

  private async authenticate(p: AuthenticateRequest): Promise<EmptyResult> {
    const method = (this.definition.authMethods ?? []).find((m) => m.methodId === p.methodId);
    if (!method) {
      throw AcpError.invalidParams(`params.methodId: ${JSON.stringify(p.methodId)} is not one of the advertised auth methods (${(this.definition.authMethods ?? []).map((m) => m.methodId).join(', ')})`, {
        path: 'params.methodId',
      });
    }
    if (method.type === 'terminal') {
      throw AcpError.invalidParams(`params.methodId: ${JSON.stringify(p.methodId)} is a terminal login method; run it in a terminal instead (ACP-V1-AUTH-03)`, { path: 'params.methodId' });
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
    this.store.create({ sessionId, cwd: p.cwd, additionalDirectories, createdAt: new Date().toISOString(), title: null });
    this.store.acquire?.(sessionId);
    const s = new SessionRuntime(this.host!, { sessionId, cwd: p.cwd, additionalDirectories, mcpServers: p.mcpServers ?? [], restored: false });
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
    return { sessionId, ...this.setupResult(s, setup) };
  }

  /** v1 `session/load` (full replay, ACP-V1-LOAD-02/03) and `session/resume` (v1 none; v2 per `replayFrom`). */
  private async restore(p: LoadSessionRequest | ResumeSessionRequest, kind: 'load' | 'resume'): Promise<SessionSetupResult> {
    checkRoots(p.cwd, p.additionalDirectories);
    this.checkMcp(p.mcpServers ?? []);
    let replay = kind === 'load';
    if (kind === 'resume' && this.version === 2) {
      const from = (p as ResumeSessionRequest).replayFrom;
      if (from != null) {
        if (typeof from !== 'object' || from.type !== 'start') {
          throw AcpError.invalidParams(`params.replayFrom.type: unsupported replay cursor ${JSON.stringify((from as { type?: unknown })?.type)} (this agent supports "start")`, {
            path: 'params.replayFrom.type',
          });
        }
        replay = true;
      }
    }
    const existing = this.sessions.get(p.sessionId);
    // one writer per stored session: refused while another process has it open (already ours when open here)
    if (!existing) this.store.acquire?.(p.sessionId);
    try {
      return await this.restoreLocked(p, kind, replay, existing);
    } catch (e) {
      if (!existing) this.store.release?.(p.sessionId);
      throw e;
    }
  }

  private async restoreLocked(p: LoadSessionRequest | ResumeSessionRequest, kind: 'load' | 'resume', replay: boolean, existing: SessionRuntime | undefined): Promise<SessionSetupResult> {
    const stored = await this.store.load(p.sessionId);
    if (!stored) throw AcpError.sessionNotFound(p.sessionId);
    if (existing && kind === 'resume' && sameSetup(existing, p)) {
      // already open here with the same roots and MCP servers: keep it (and its running turn);
      // replay through a fresh encoder. Another setup reopens it below like `session/load`, so
      // `openSession` sees the request's complete `mcpServers` list (ACP-V2-RESUME-09).
      if (replay) await this.replay(existing, stored, this.codec!.createUpdateEncoder({ clientCapabilities: this.client.capabilities, configOptions: existing.configOptions }));
      if (this.version === 2) existing.sendLive(existing.stateSnapshot());
      return this.setupResult(existing, undefined);
    }
    if (existing) {
      // the lock stays: the reopened runtime takes it over
      this.sessions.delete(p.sessionId);
      await existing.close('reopening the session');
    }
    const additionalDirectories = [...(p.additionalDirectories ?? [])];
    const s = new SessionRuntime(this.host!, { sessionId: p.sessionId, cwd: p.cwd, additionalDirectories, mcpServers: p.mcpServers ?? [], restored: true });
    const history = stored.updates.filter(isHistoryUpdate);
    const setup = await this.definition.openSession?.(s, { restored: true, history });
    s.openWith(restoreValues(setup?.configOptions ?? [], stored.meta.configValues));
    if (replay) await this.replay(s, stored);
    else for (const u of stored.updates) if (isHistoryUpdate(u)) s.prime(u);
    if (this.version === 2) s.sendLive(s.stateSnapshot());
    this.sessions.set(p.sessionId, s);
    return this.setupResult(s, setup, true);
  }

  /**
   * Sends the stored history, re-encoded for this connection's version (a v2-recorded session
   * replays to v1 and back); with `encoder` given, through it instead of the session's own.
   * v2: the first chunk of each message is preceded by a whole-message update with the same id and
   * `content: []`, and the first content chunk of a tool call by a `tool_call_update` with
   * `content: []`: a client that already holds them (an earlier resume) replaces them instead of
   * appending a second copy (ACP-V2-RESUME-04).
   */
  private async replay(s: SessionRuntime, stored: StoredSession, encoder?: UpdateEncoder): Promise<void> {
    const enc = encoder ?? s.encoder;
    // stored lines are checked against the schema before they go out: a corrupt or hand-edited
    // store must not put invalid updates on the wire (nor abort the replay half-way)
    const validator = (this.replayValidator ??= getValidator(this.version!));
    const send = (u: AnySessionUpdate, where: string): void => {
      if (!encoder) s.noteSent(u);
      let wires: unknown[];
      try {
        wires = enc.encode(u as SessionUpdate);
      } catch (e) {
        this.logger.warn(`session ${s.sessionId}: stored update at ${where} dropped from the replay: it cannot be encoded (${(e as Error)?.message ?? String(e)})`);
        return;
      }
      if (wires.length === 0 && this.version === 1) {
        // v1 drops what it cannot show: tell a corrupt body (checked in the v2 shape, the closest
        // to the neutral model) from a kind v1 simply lacks
        const v2 = (this.neutralCheck ??= { encoder: codecFor(2).createUpdateEncoder(), validator: getValidator(2) });
        let failure: ReturnType<WireValidator['update']> = null;
        try {
          for (const w of v2.encoder.encode(u as SessionUpdate)) failure ||= v2.validator.update(w);
        } catch (e) {
          failure = { path: 'update', message: (e as Error)?.message ?? String(e) } as ReturnType<WireValidator['update']>;
        }
        if (failure && failure !== 'unknown') this.logger.warn(`session ${s.sessionId}: stored update at ${where} dropped from the replay: invalid ${u.sessionUpdate} at ${failure.path}: ${failure.message}`);
        return;
      }
      for (const wire of wires) {
        let failure: ReturnType<WireValidator['update']>;
        try {
          failure = validator.update(wire);
        } catch (e) {
          failure = { path: 'update', message: (e as Error)?.message ?? String(e) } as ReturnType<WireValidator['update']>;
        }
        if (failure && failure !== 'unknown') {
          this.logger.warn(`session ${s.sessionId}: stored update at ${where} dropped from the replay: invalid ${(wire as { sessionUpdate?: unknown }).sessionUpdate ?? 'update'} at ${failure.path}: ${failure.message}`);
          continue;
        }
        try {
          this.peer.notify(Methods.sessionUpdate, { sessionId: s.sessionId, update: wire });
        } catch (e) {
          // e.g. nested too deep to serialise
          this.logger.warn(`session ${s.sessionId}: stored update at ${where} dropped from the replay: it cannot be sent (${(e as Error)?.message ?? String(e)})`);
        }
      }
    };
    const primed = new Set<string>();
    let n = 0;
    for (let i = 0; i < stored.updates.length; i++) {
      const u = stored.updates[i];
      if (!isHistoryUpdate(u)) continue;
      const where = stored.locations?.[i] ?? `history entry ${i + 1}`;
      if (this.version === 2) {
        const primer = replayPrimer(u, primed);
        if (primer) send(primer, where);
      }
      send(u, where);
      if (++n % 256 === 0) await this.peer.whenWritable();
    }
  }

  /**
   * The session/new, load or resume result. v1 results cannot carry commands, so they go out as an
   * `available_commands_update` (ACP-ALL-CMD-01): for a restored session BEFORE the response, so
   * everything describing it precedes the response and nothing of it follows until the next
   * prompt; for a new session right after it (the client learns the id from the response).
   */
  private setupResult(s: SessionRuntime, setup: SessionSetup | void, restored = false): SessionSetupResult {
    const res: SessionSetupResult = {};
    const config = this.visibleConfig(s.configOptions);
    const commands = setup?.availableCommands;
    if (this.version === 2) {
      res.configOptions = config;
      if (commands) res.availableCommands = commands;
    } else {
      if (config.length > 0) res.configOptions = config;
      const modes = modesOf(s.configOptions);
      if (modes) res.modes = modes;
      if (commands) {
        const update: AnySessionUpdate = { sessionUpdate: 'available_commands_update', availableCommands: commands };
        if (restored) s.sendLive(update);
        else setImmediate(() => s.sendLive(update));
      }
    }
    return res;
  }

  /** v1 clients see boolean options only when they advertised them (ACP-V1-CFG-01). */
  private visibleConfig(list: readonly ConfigOption[]): ConfigOption[] {
    if (this.version === 2 || this.client.capabilities.booleanConfigOptions) return [...list];
    return list.filter((o) => o.type !== 'boolean');
  }

  private async closeSession(p: SessionIdRequest): Promise<EmptyResult> {
    const s = this.sessions.get(p.sessionId);
    if (!s) {
      // v2: closing an unknown or inactive session succeeds (ACP-ALL-CLOSE-02)
      if (this.version === 2) return {};
      throw AcpError.sessionNotFound(p.sessionId);
    }
    this.sessions.delete(p.sessionId);
    await s.close('session/close');
    this.store.release?.(p.sessionId);
    return {};
  }

  private async deleteSession(p: SessionIdRequest): Promise<EmptyResult> {
    const s = this.sessions.get(p.sessionId);
    if (s) {
      this.sessions.delete(p.sessionId);
      await s.close('session/delete');
    }
    try {
      await this.store.delete(p.sessionId);
    } finally {
      if (s) this.store.release?.(p.sessionId);
    }
    return {};
  }

  private async prompt(p: PromptRequest, ctx: RequestContext): Promise<PromptResponse> {
    const s = this.session(p.sessionId);
    if (!Array.isArray(p.prompt) || (this.version === 2 && p.prompt.length === 0)) {
      throw AcpError.invalidParams('params.prompt: must contain at least one content block (ACP-V2-LIFE-14)', { path: 'params.prompt' });
    }
    const deep = tooDeep(p.prompt, 'params.prompt', MAX_PROMPT_DEPTH);
    if (deep) throw AcpError.invalidParams(`${deep}: nested deeper than ${MAX_PROMPT_DEPTH} levels (a prompt this deep cannot be stored or replayed)`, { path: deep });
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
      const type = (block as { type?: unknown } | null)?.type;
      if (type === 'text' || type === 'resource_link') return;
      const needs = type === 'image' ? 'image' : type === 'audio' ? 'audio' : type === 'resource' ? 'embeddedContext' : undefined;
      const path = `params.prompt[${i}]`;
      if (!needs) {
        throw AcpError.invalidParams(`${path}.type: content type ${JSON.stringify(type)} is not supported by this agent (ACP-V2-CONT-01)`, { path });
      }
      if (!caps[needs]) {
        throw AcpError.invalidParams(`${path}: ${type} content needs the prompt capability "${needs}", which this agent does not advertise (ACP-ALL-CONT-02)`, { path });
      }
    });
  }

  private checkMcp(servers: readonly McpServer[]): void {
    const mcp = this.definition.capabilities?.mcp ?? {};
    servers.forEach((server, i) => {
      const type = (server as { type?: string }).type ?? 'stdio';
      const ok = type === 'stdio' ? this.version === 1 || !!mcp.stdio : type === 'http' ? !!mcp.http : type === 'sse' ? this.version === 1 && !!mcp.sse : false;
      if (!ok) {
        throw AcpError.invalidParams(`params.mcpServers[${i}].type: this agent does not support ${JSON.stringify(type)} MCP servers (ACP-V2-SESS-03)`, {
          path: `params.mcpServers[${i}].type`,
        });
      }
    });
  }

  // ---- wire helpers -----------------------------------------------------------

  private makeHost(codec: WireCodec): SessionHost {
    const conn = this;
    return {
      version: this.version!,
      codec,
      definition: this.definition,
      store: this.store,
      logger: this.logger,
      client: this.client,
      maxHeldPrompts: this.options.maxHeldPrompts ?? DEFAULT_MAX_HELD,
      cancelTimeoutMs: this.options.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT,
      sendUpdate: (s, update) => conn.sendUpdate(s, update),
      askPermission: (s, q, signal) => conn.askPermission(codec, s, q, signal),
      whenWritable: () => conn.peer.whenWritable(),
      clientServices: (sessionId) => conn.clientServices(codec, sessionId),
    };
  }

  private sendUpdate(s: SessionRuntime, update: AnySessionUpdate): void {
    this.writeUpdate(s.sessionId, s.encoder, update);
  }

  private writeUpdate(sessionId: string, encoder: UpdateEncoder, update: AnySessionUpdate): void {
    // (what a version cannot show, e.g. v1's `state_update`, the encoder drops: the codec is the one place)
    for (const wire of encoder.encode(update as SessionUpdate)) {
      this.checkOutgoing('update', Methods.sessionUpdate, wire);
      this.peer.notify(Methods.sessionUpdate, { sessionId, update: wire });
    }
  }

  private async askPermission(codec: WireCodec, s: SessionRuntime, q: PermissionQuestion, signal: AbortSignal): Promise<PermissionOutcome> {
    const req: PermissionRequest = { sessionId: s.sessionId, title: q.title, options: q.options };
    if (q.description != null) req.description = q.description;
    if (q.subject != null) req.subject = q.subject;
    const res = await this.requestClient(codec, Methods.requestPermission, req, signal);
    return res.outcome;
  }

  private async requestClient<M extends ClientMethod>(codec: WireCodec, method: M, params: ParamsOf<M>, signal?: AbortSignal): Promise<ResultOf<M>> {
    const wireMethod = codec.wireMethod(method);
    if (!wireMethod) throw AcpError.methodNotFound(`${method} (not part of protocol v${this.version})`);
    const wire = codec.encodeParams(method, params);
    this.checkOutgoing('params', wireMethod, wire);
    const result = await this.peer.request(wireMethod, wire, { signal, onAbort: 'reject' });
    return codec.decodeResult(method, result);
  }

  private clientServices(codec: WireCodec, sessionId: string): ClientServices {
    return createClientServices(this.version!, this.client.capabilities, sessionId, (method, params, signal) => this.requestClient(codec, method, params, signal));
  }

  /** `validateOutgoing`: a message that breaks the schema is a bug in this agent; fail loudly. */
  private checkOutgoing(kind: 'result' | 'params' | 'update', method: string, wire: unknown): void {
    const v = this.validator;
    if (!v) return;
    const failure = kind === 'result' ? v.result(method, wire) : kind === 'params' ? v.params(method, wire) : v.update(wire);
    if (failure && failure !== 'unknown') {
      const what = kind === 'update' ? 'session/update update' : `${method} ${kind}`;
      const msg = `outgoing ${what} violates the v${this.version} schema at ${failure.path}: ${failure.message}`;
      this.logger.error(msg);
      throw AcpError.internal(msg, { path: failure.path });
    }
  }
}

const WHOLE_MESSAGE_OF: Record<string, string> = {
  user_message_chunk: 'user_message',
  agent_message_chunk: 'agent_message',
  agent_thought_chunk: 'agent_thought',
};

/**
 * The v2 replay primer due before `u`, if any; `primed` remembers the messages and tool calls
 * whose content this replay has already set (whole updates count as primers themselves).
 */
function replayPrimer(u: AnySessionUpdate, primed: Set<string>): AnySessionUpdate | undefined {
  const o = u as { sessionUpdate: string; messageId?: unknown; toolCallId?: unknown; content?: unknown };
  const whole = WHOLE_MESSAGE_OF[o.sessionUpdate];
  if (whole !== undefined) {
    if (typeof o.messageId !== 'string') return undefined;
    const key = `${whole}\0${o.messageId}`;
    if (primed.has(key)) return undefined;
    primed.add(key);
    return { sessionUpdate: whole, messageId: o.messageId, content: [] } as AnySessionUpdate;
  }
  if (o.sessionUpdate === 'user_message' || o.sessionUpdate === 'agent_message' || o.sessionUpdate === 'agent_thought') {
    if (typeof o.messageId === 'string' && o.content !== undefined) primed.add(`${o.sessionUpdate}\0${o.messageId}`);
    return undefined;
  }
  if (typeof o.toolCallId !== 'string') return undefined;
  const key = `tool\0${o.toolCallId}`;
  if (o.sessionUpdate === 'tool_call_update') {
    if (o.content !== undefined) primed.add(key);
    return undefined;
  }
  if (o.sessionUpdate === 'tool_call_content_chunk' && !primed.has(key)) {
    primed.add(key);
    return { sessionUpdate: 'tool_call_update', toolCallId: o.toolCallId, content: [] } as AnySessionUpdate;
  }
  return undefined;
}

/** Whether a restore request names the open session's own cwd, directories and MCP servers. */
function sameSetup(s: SessionRuntime, p: LoadSessionRequest | ResumeSessionRequest): boolean {
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  return s.cwd === p.cwd && same(s.additionalDirectories, p.additionalDirectories ?? []) && same(s.mcpServers, p.mcpServers ?? []);
}

/** How deep a prompt may nest (blocks, `_meta`, resources): far beyond real content, far below the stack limit. */
const MAX_PROMPT_DEPTH = 64;

/** The path of the first value nested deeper than `max` below `root`, else `undefined` (iterative: no stack to overflow). */
function tooDeep(root: unknown, rootPath: string, max: number): string | undefined {
  const stack: Array<[unknown, string, number]> = [[root, rootPath, 0]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return path;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, `${path}[${i}]`, depth + 1]));
    else for (const [k, x] of Object.entries(v)) stack.push([x, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, depth + 1]);
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
  if (p.split(SEPARATORS).some((seg) => seg === '..' || seg === '.')) return 'must be an absolute path without "." or ".." segments (it is not normalised)';
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
  if (!Array.isArray(dirs)) throw AcpError.invalidParams('params.additionalDirectories: must be an array of absolute paths', { path: 'params.additionalDirectories' });
  dirs.forEach((d, i) => {
    const problem = rootProblem(d);
    if (problem) {
      throw AcpError.invalidParams(`params.additionalDirectories[${i}]: ${problem} (got ${quote(d)})`, {
        path: `params.additionalDirectories[${i}]`,
      });
    }
  });
}

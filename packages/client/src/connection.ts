import {
  agentMethodSupported,
  codecFor as builtinCodecFor,
  type WireCodec,
  AcpError,
  ErrorCode,
  Methods,
  type AgentMethod,
  type AgentNotifications,
  type ClientMethod,
  type ParamsOf,
  type ResultOf,
  type AgentCapabilities,
  type AuthMethod,
  type ClientCapabilities,
  type Implementation,
  type McpServer,
  type SessionInfo,
  type InitializeResponse,
  type ListSessionsRequest,
  type ForkSessionRequest,
  type SessionStatusResponse,
  type NewSessionRequest,
  type ResumeSessionRequest,
  type AuthStatus,
  type ProviderInfo,
  type SetProviderRequest,
} from '@acp-kit/protocol';
import { isAbsolute } from 'node:path';
import {
  spawnAgent,
  type AgentProcess,
  ConnectionClosedError,
  JsonRpcPeer,
  type RequestContext,
  type RequestOptions,
  type CloseInfo,
} from '@acp-kit/protocol/rpc';
import { ClientSession, type ClientSessionHost } from './client-session.js';
import { ConnectAbortedError, describeTarget, untilInitialized, watchStartup } from './connect-abort.js';
import { Emitter, type ClientEvents, type ClientProblem } from './events.js';
import { UnsupportedProtocolVersionError, acceptableVersions, buildInitializeParams } from './initialize.js';
import type { RemoteTarget } from './remote.js';
import type {
  AgentTarget,
  ClientOptions,
  ListSessionsOptions,
  NewSessionOptions,
  ResumeSessionOptions,
  RestoreSessionOptions,
} from './options.js';
import { ClientElicitations } from './elicitations.js';
import { McpOverAcpServers } from './mcp-over-acp.js';
import { resolveMcpServers } from './mcp-over-acp-session.js';
import { elicitationModes } from './services/elicitation-policy.js';
import { FileSystemSandbox } from './services/fs-sandbox.js';
import { TerminalManager } from './services/terminals.js';
import { RequestTimeoutError } from './request-timeout.js';
import { readAuthStatus, requireAuthProviders, type AuthProvidersClient } from './auth-providers.js';
import { requireUnstable } from './unstable-sessions.js';
import { UpdateRouter } from './update-router.js';
import { isObj, packageVersion } from '@acp-kit/protocol/internal';

/** The v2 session surface a `session` marker promises (ACP-V2-CAP-02). */
const V2_SESSION_SURFACE: ReadonlySet<AgentMethod> = new Set<AgentMethod>([
  Methods.sessionList,
  Methods.sessionResume,
  Methods.sessionClose,
]);

type ClientHandler<M extends ClientMethod> = (
  params: ParamsOf<M>,
  ctx: RequestContext,
) => ResultOf<M> | Promise<ResultOf<M>>;

/**
 * Connects to an agent — spawned from `command` over stdio, over a given `transport`, or remote at
 * `url` (`ws://`, `http://`; see {@link connectRemote}) — and
 * runs `initialize`. Works with any ACP agent speaking v1 or v2 (see {@link ClientOptions.protocol}).
 * Rejects (and kills a spawned agent's process group) when initialization fails, the agent
 * answers a version this client cannot speak (ACP-ALL-INIT-04), or — with
 * {@link ConnectAbortedError} — `initializeTimeoutMs` elapses or `signal` aborts first.
 */
export async function connect(
  options: ClientOptions & (AgentTarget | (RemoteTarget & { command?: undefined; transport?: undefined })),
): Promise<ClientConnection> {
  // a remote agent (`{ url, token }`): its transports load only when asked for
  if (isRemote(options)) return connectRemote(options);
  return connectToAgent(options, options);
}

/**
 * Connects to a remote agent (`acp-kit serve`, or any server of the remote transport RFD) and runs
 * `initialize`, as {@link connectToAgent} does for a local one. The transports (and `ws`) load only here.
 */
export async function connectRemote(options: ClientOptions & RemoteTarget): Promise<ClientConnection> {
  const { url, token, headers, http2, ...clientOptions } = options;
  const { openRemoteTransport } = await import('./remote.js');
  return connectToAgent({ transport: await openRemoteTransport({ url, token, headers, http2 }) }, clientOptions);
}

/** What a caller who gave no usable agent is told: the field, what it must be, what it got. */
function badTargetMessage(command: unknown): string {
  if (command === undefined)
    return 'connect: give `command` (the agent program, e.g. "node"), `url` (a remote agent) or `transport`';
  if (Array.isArray(command))
    return 'connect: `command` must be the program as a string, with its arguments in `args` (got an array)';
  return `connect: \`command\` must be a non-empty string naming the agent program (got ${JSON.stringify(command) ?? typeof command})`;
}

type RemoteConnectOptions = ClientOptions & RemoteTarget & { command?: undefined; transport?: undefined };
type ConnectOptions = ClientOptions & (AgentTarget | (RemoteTarget & { command?: undefined; transport?: undefined }));

function isRemote(options: ConnectOptions): options is RemoteConnectOptions {
  return 'url' in options && typeof options.url === 'string';
}

/** {@link connect} with the target and the options apart. */
export async function connectToAgent(target: AgentTarget, options: ClientOptions = {}): Promise<ClientConnection> {
  const { signal, initializeTimeoutMs: timeoutMs } = options;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= 2 ** 31 - 1)) {
    throw new TypeError(
      `initializeTimeoutMs must be a positive number of milliseconds up to 2^31-1 (got ${String(timeoutMs)})`,
    );
  }
  const setupMs = options.sessionSetupTimeoutMs;
  if (setupMs !== undefined && !(typeof setupMs === 'number' && setupMs > 0 && setupMs <= 2 ** 31 - 1)) {
    throw new TypeError(
      `sessionSetupTimeoutMs must be a positive number of milliseconds up to 2^31-1 (got ${String(setupMs)})`,
    );
  }
  const label = describeTarget(target);
  // nothing is spawned for a connect that was cancelled before it started
  if (signal?.aborted) throw new ConnectAbortedError('aborted', label, undefined, { cause: signal.reason });
  const emitter = new Emitter<ClientEvents>();
  let agent: AgentProcess | undefined;
  let transport = target.transport;
  if (!transport) {
    if (typeof target.command !== 'string' || target.command.length === 0)
      throw new TypeError(badTargetMessage(target.command));
    agent = spawnAgent(target.command, target.args ?? [], {
      cwd: target.cwd,
      env: target.env,
      stderrLines: options.stderrLines,
      onStderr: (text) => {
        options.onStderr?.(text);
        emitter.emit('stderr', text);
      },
    });
    transport = agent.transport;
  }
  // fails fast on a broken agent (non-JSON stdout, exit) with AgentStartupError
  const startup = watchStartup(transport, label, agent?.stderrTail);
  const conn = new ClientConnection(startup.transport, agent, options, emitter);
  try {
    await untilInitialized(startup.guard(conn.initialize()), label, signal, timeoutMs);
  } catch (e) {
    await conn.close();
    throw e;
  } finally {
    startup.stop();
  }
  return conn;
}

/**
 * A client's connection to one agent, with one version-neutral view of every session.
 * Create it with {@link connect} / {@link connectToAgent}.
 */
export class ClientConnection implements AuthProvidersClient {
  private readonly peer: JsonRpcPeer;
  private authState: AuthStatus | undefined;
  private requiredProviders = new Set<string>();
  private readonly codecFor: (v: 1 | 2) => WireCodec;
  private codec: WireCodec | undefined;
  private readonly elicitations: ClientElicitations;
  private router: UpdateRouter | undefined;
  private readonly early: unknown[] = [];
  private earlyDropped = false;
  private version: 1 | 2 | undefined;
  private init: InitializeResponse | undefined;
  private readonly clientCaps: ClientCapabilities;
  private readonly rejectClosed: (e: unknown) => void;
  private closing: Promise<void> | undefined;
  /** MCP servers this client serves the agent over `mcp/message` (MCP over ACP) */
  private readonly mcpOverAcp = new McpOverAcpServers();
  /** @internal rejects with the close error when the connection ends */
  readonly closedError: Promise<never>;

  /** @internal use {@link connect} */
  constructor(
    transport: import('@acp-kit/protocol/rpc').Transport,
    private readonly agent: AgentProcess | undefined,
    private readonly options: ClientOptions,
    private readonly emitter: Emitter<ClientEvents> = new Emitter<ClientEvents>(),
  ) {
    this.codecFor = options.codecFor ?? ((v) => builtinCodecFor(v));
    this.clientCaps = {
      ...(options.fileSystem ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
      ...(options.terminals ? { terminal: true } : {}),
      // the modes the elicitation policy answers (ACP-ALL-ELIC-01; ACP-V1-CAP-02: encoded as `{}` markers)
      ...(options.elicitation ? { elicitation: elicitationModes(options.elicitation) } : {}),
      // the state store applies these, so the agent may send them (ACP-V1-CFG-01, NOTICE-01, COMPACT-01)
      booleanConfigOptions: true,
      notices: true,
      compaction: true,
      // unstable v1 `subagents`: the state nests child sessions and keeps inter-session messages
      subagents: true,
      ...(options.capabilitiesMeta ? { _meta: options.capabilitiesMeta } : {}),
    };
    let rejectClosed!: (e: unknown) => void;
    this.closedError = new Promise<never>((_, reject) => (rejectClosed = reject));
    this.closedError.catch(() => undefined);
    this.rejectClosed = rejectClosed;
    if (options.onProblem) emitter.on('problem', options.onProblem);
    this.peer = new JsonRpcPeer(transport, {
      // junk on the agent's stdout is reported, never answered or fatal
      answerParseErrors: false,
      onProblem: (p) => this.problem({ kind: p.kind, message: p.message, detail: p.detail }),
      tap: options.tap,
    });
    this.elicitations = new ClientElicitations(options.elicitation, (e) => emitter.emit('elicitation', e));
    this.peer.onNotification(Methods.sessionUpdate, (params) => this.onUpdate(params));
    this.peer.onNotification(Methods.elicitationComplete, (params) => this.onElicitationComplete(params));
    this.peer.onNotification(Methods.authStatusUpdate, (params) => this.onAuthStatusUpdate(params));
    this.peer.onOtherNotification(() => undefined);
    this.peer.onOtherRequest((method, params, ctx) => this.onRequest(method, params, ctx));
    void this.peer.closed.then((info) => this.onClosed(info));
  }

  // ---- negotiated facts ---------------------------------------------------------------------

  /** The protocol version spoken on this connection (ACP-ALL-INIT-05). */
  get protocolVersion(): 1 | 2 {
    if (!this.version) throw new AcpError(ErrorCode.InvalidRequest, 'not initialized');
    return this.version;
  }
  /** The agent's `agentInfo` (v1) / `info` (v2). */
  get agentInfo(): Implementation | null {
    return this.init?.agentInfo ?? null;
  }
  /** What the agent supports, version-neutral (absent = unsupported, ACP-ALL-CAP-01). */
  get agentCapabilities(): AgentCapabilities {
    return this.init?.agentCapabilities ?? {};
  }
  /** Authentication methods the agent offers. */
  get authMethods(): AuthMethod[] {
    return this.init?.authMethods ?? [];
  }
  /** The capabilities this client advertised. */
  get clientCapabilities(): ClientCapabilities {
    return this.clientCaps;
  }
  /** Open sessions by id. */
  get sessions(): ReadonlyMap<string, ClientSession> {
    return this.router?.all ?? new Map();
  }
  /** The spawned agent process (when connected by command). */
  get agentProcess(): AgentProcess | undefined {
    return this.agent;
  }
  /** Resolves with the reason once the connection has ended. */
  get closed(): Promise<CloseInfo> {
    return this.peer.closed;
  }
  get isClosed(): boolean {
    return this.peer.isClosed;
  }

  /** Listens to `problem`, `stderr` and `close` events; returns the unsubscribe function. */
  on<K extends keyof ClientEvents>(event: K, listener: ClientEvents[K]): () => void {
    return this.emitter.on(event, listener);
  }

  /** The session with this id, if open. */
  session(sessionId: string): ClientSession | undefined {
    return this.router?.all.get(sessionId);
  }

  /**
   * Whether the agent has `method` on this connection: the negotiated version has it and the agent
   * advertises what gates it (e.g. `session/load` is v1 with `loadSession`, `session/list` needs
   * the list capability, v2's `session` marker; `tool_call/cancel` is v2). `false` before
   * `initialize` completed.
   */
  supports(method: AgentMethod): boolean {
    if (!this.version) return false;
    return agentMethodSupported(method, this.version, this.agentCapabilities, this.authMethods);
  }

  /**
   * The request that replays a session's history on this connection, for
   * `resumeSession(id, { replay: true })`: v1 `session/load` (v1 resume never replays,
   * ACP-V1-RESUME-02), v2 `session/resume` with `replayFrom`; `undefined` when the agent has
   * neither.
   */
  get replayMethod(): 'session/load' | 'session/resume' | undefined {
    if (this.supports('session/load')) return 'session/load';
    // a version with `session/load` replays only through it; the one without (v2) resumes with `replayFrom`
    return this.codec?.wireMethod(Methods.sessionLoad) === undefined && this.supports('session/resume')
      ? 'session/resume'
      : undefined;
  }

  /**
   * Whether a request for `method` is sent: {@link supports}, except that v2's session surface is
   * still tried when the agent omits the `session` marker (ACP-V2-CAP-03; some agents do): its
   * -32601 answer then becomes a clear "unsupported" (see `setupCall`).
   */
  private maySend(method: AgentMethod): boolean {
    return this.supports(method) || (this.version === 2 && V2_SESSION_SURFACE.has(method));
  }

  // ---- initialize & auth ----------------------------------------------------------------------

  /** @internal run once by {@link connect} */
  async initialize(): Promise<void> {
    const choice = this.options.protocol ?? 'auto';
    if (choice !== 'auto' && choice !== 1 && choice !== 2)
      throw new TypeError(`protocol must be 'auto', 1 or 2 (got ${String(choice)})`);
    const info = this.options.clientInfo ?? { name: 'acp-kit', version: packageVersion() };
    let params = buildInitializeParams(choice, this.codecFor, info, this.clientCaps);
    let accept = acceptableVersions(choice);
    let raw: unknown;
    try {
      raw = await this.peer.request('initialize', params);
    } catch (e) {
      // an agent that cannot serve v2 and says so with -32022 may still speak v1 (ACP-V2-INIT-05)
      const supported =
        e instanceof AcpError && e.code === ErrorCode.UnsupportedVersion && isObj(e.data)
          ? e.data.supported
          : undefined;
      if (choice !== 'auto' || !Array.isArray(supported) || !supported.includes(1)) throw e;
      params = buildInitializeParams(1, this.codecFor, info, this.clientCaps);
      accept = [1];
      raw = await this.peer.request('initialize', params);
    }
    const answered = isObj(raw) ? raw.protocolVersion : undefined;
    const version = accept.find((v) => v === answered);
    if (version === undefined) throw new UnsupportedProtocolVersionError(answered, accept);
    const codec = this.codecFor(version);
    this.init = codec.decodeResult(Methods.initialize, raw);
    this.codec = codec;
    this.version = version;
    this.router = new UpdateRouter(codec, (p) => this.problem(p), this.options.maxBufferedUpdates ?? 10_000);
    for (const p of this.early.splice(0)) this.router.route(p);
  }

  /** `authenticate` (v1) / `auth/login` (v2). Terminal methods are never sent (ACP-V1-AUTH-03, ACP-V2-AUTH-06). */
  async authenticate(methodId: string): Promise<void> {
    const m = this.authMethods.find((a) => a.methodId === methodId);
    // v1 agents are still asked (the agent answers for itself); v2 sends auth/login only for offered methods
    if (this.version === 2 && !this.supports(Methods.authenticate))
      throw new AcpError(
        ErrorCode.InvalidRequest,
        'the agent offers no authMethods, so auth/login must not be called (ACP-V2-AUTH-02)',
      );
    if (m?.type === 'terminal')
      throw new AcpError(
        ErrorCode.InvalidRequest,
        `auth method ${JSON.stringify(methodId)} is a terminal login: run the agent with its args interactively, then reconnect (ACP-ALL-AUTH-02)`,
      );
    await this.call(Methods.authenticate, { methodId });
  }

  /** `logout` (v1, only when `auth.logout` is advertised) / `auth/logout` (v2, only with authMethods). */
  async logout(): Promise<void> {
    if (!this.supports(Methods.logout)) {
      throw this.version === 1
        ? new AcpError(ErrorCode.MethodNotFound, 'the agent does not advertise auth.logout (ACP-V1-AUTH-02)')
        : new AcpError(
            ErrorCode.InvalidRequest,
            'the agent offers no authMethods, so auth/logout must not be called (ACP-V2-AUTH-02)',
          );
    }
    await this.call(Methods.logout, {});
  }

  // ---- sessions -------------------------------------------------------------------------------

  /**
   * `session/new`. Updates the agent sends before its response (or in the same read, after it)
   * are applied in wire order around the setup result, and all of them reach
   * `options.onUpdate` before this resolves.
   */
  async newSession(options: NewSessionOptions): Promise<ClientSession> {
    this.ready();
    return this.openSession(Methods.sessionNew, this.setupParams(options), options);
  }

  /**
   * `session/new` or `session/fork`: the session the answer names, made and claimed as the answer
   * arrives; `options.onUpdate` sees its updates until this resolves, `options.signal` withdraws it.
   */
  private async openSession<M extends 'session/new' | 'session/fork'>(
    method: M,
    params: ParamsOf<M>,
    options: NewSessionOptions,
  ): Promise<ClientSession> {
    const router = this.ready();
    let unsubscribe: (() => void) | undefined;
    try {
      return await this.setupCall(
        method,
        params,
        (r) => {
          if (!r || typeof r.sessionId !== 'string')
            throw AcpError.invalidParams(`${method} result.sessionId must be a string`);
          const session = this.makeSession(r.sessionId, options);
          // subscribed before the claim, so the updates buffered before the response are seen too
          unsubscribe = this.stream(session, options.onUpdate);
          router.claim(r.sessionId, session);
          session.state.applySetup(r);
          return session;
        },
        undefined,
        undefined,
        options.signal,
      );
    } finally {
      unsubscribe?.();
    }
  }

  /** v1 `session/load` (gated by `loadSession`, ACP-V1-LOAD-01): the replay lands in a fresh state. */
  async loadSession(sessionId: string, options: RestoreSessionOptions): Promise<ClientSession> {
    const router = this.ready();
    if (!this.supports(Methods.sessionLoad)) {
      throw new AcpError(
        ErrorCode.MethodNotFound,
        this.codec?.wireMethod(Methods.sessionLoad) === undefined
          ? `session/load does not exist in ACP v${this.version}; use resumeSession(id, { replay: true })`
          : 'the agent does not advertise loadSession (ACP-V1-LOAD-01)',
      );
    }
    return this.restore(router, Methods.sessionLoad, sessionId, options, { sessionId, ...this.setupParams(options) });
  }

  /**
   * `session/resume`. v2: always available with the session surface; `replay: true` sends
   * `replayFrom: {type: "start"}`. v1: needs `sessionCapabilities.resume`; `replay: true` uses
   * `session/load` instead (v1 resume never replays, ACP-V1-RESUME-02).
   */
  async resumeSession(sessionId: string, options: ResumeSessionOptions): Promise<ClientSession> {
    const router = this.ready();
    // a version with session/load replays through it (v1 resume never replays, ACP-V1-RESUME-02)
    if (options.replay && this.codec?.wireMethod(Methods.sessionLoad) !== undefined)
      return this.loadSession(sessionId, options);
    if (!this.maySend(Methods.sessionResume))
      throw new AcpError(
        ErrorCode.MethodNotFound,
        'the agent does not advertise sessionCapabilities.resume (ACP-V1-RESUME-01)',
      );
    const params: ResumeSessionRequest = { sessionId, ...this.setupParams(options) };
    if (options.replay) params.replayFrom = { type: 'start' };
    return this.restore(router, Methods.sessionResume, sessionId, options, params);
  }

  private async restore<M extends 'session/load' | 'session/resume'>(
    router: UpdateRouter,
    method: M,
    sessionId: string,
    options: RestoreSessionOptions,
    params: ParamsOf<M>,
  ): Promise<ClientSession> {
    const previous = this.session(sessionId);
    // the session exists before the request so the replay streams straight into its state
    const session = this.makeSession(sessionId, options);
    // subscribed before the claim, so not even a buffered update is missed; kept until the call
    // resolves so updates read together with the response are streamed too
    const unsubscribe = this.stream(session, options.onUpdate);
    previous?.supersede(session);
    router.claim(sessionId, session, true);
    try {
      await this.setupCall(
        method,
        params,
        (res) => {
          // applied at the point of the response: updates read after it land after the setup result
          if (res) session.state.applySetup(res);
        },
        () => {
          router.release(sessionId, false);
          session.markClosed();
        },
        session,
        options.signal,
      );
    } finally {
      unsubscribe?.();
    }
    return session;
  }

  /**
   * Calls `listener` with every update applied to `session` until the returned function is
   * called; a throwing listener is reported and never cuts a setup short.
   */
  private stream(session: ClientSession, listener: NewSessionOptions['onUpdate']): (() => void) | undefined {
    if (!listener) return undefined;
    return session.onUpdate((update, state) => {
      try {
        listener(update, state);
      } catch (e) {
        this.problem({
          kind: 'handler-error',
          sessionId: session.sessionId,
          message: `onUpdate failed on ${update.sessionUpdate}: ${e instanceof Error ? e.message : String(e)}`,
          detail: e,
        });
      }
    });
  }

  /**
   * A session set-up request (`session/new`, `/load`, `/resume`): `atAnswer` runs synchronously
   * when the response is read, before any later message (wire order); `onFail` when it fails.
   * `-32601` becomes a clear "unsupported" (v2 agents may omit the `session` marker, so the
   * request is the only test); {@link ClientOptions.sessionSetupTimeoutMs} bounds the wait
   * (restarted by each update applied to `replaying`, the session a load/resume streams into).
   */
  private async setupCall<M extends 'session/new' | 'session/load' | 'session/resume' | 'session/fork', T>(
    method: M,
    params: ParamsOf<M>,
    atAnswer: (result: ResultOf<M>) => T,
    onFail?: () => void,
    replaying?: ClientSession,
    given?: AbortSignal,
  ): Promise<T> {
    const timeoutMs = this.options.sessionSetupTimeoutMs;
    const abort = new AbortController();
    // the caller giving up withdraws the request like the time limit does ($/cancel_request)
    const giveUp = (): void => abort.abort(given?.reason);
    if (given?.aborted) giveUp();
    else given?.addEventListener('abort', giveUp, { once: true });
    let timer: NodeJS.Timeout | undefined;
    let stopWatching: (() => void) | undefined;
    const timedOut =
      timeoutMs === undefined
        ? undefined
        : new Promise<never>((_, reject) => {
            const expire = (): void => {
              abort.abort();
              reject(new RequestTimeoutError(method, timeoutMs));
            };
            timer = setTimeout(expire, timeoutMs);
            // a long replay is progress, not a hang: each replayed update restarts the limit
            stopWatching = replaying?.onUpdate(() => timer?.refresh());
          });
    timedOut?.catch(() => undefined);
    try {
      const call = this.callAt(method, params, atAnswer, { signal: abort.signal });
      return await (timedOut ? Promise.race([call, timedOut]) : call);
    } catch (e) {
      onFail?.();
      if (e instanceof AcpError && e.code === ErrorCode.MethodNotFound && !(e instanceof RequestTimeoutError)) {
        throw new AcpError(
          ErrorCode.MethodNotFound,
          `the agent does not support ${method} (it answered -32601: ${e.message})`,
          e.data,
        );
      }
      throw e;
    } finally {
      given?.removeEventListener('abort', giveUp);
      clearTimeout(timer);
      stopWatching?.();
    }
  }

  /**
   * `session/list`, following `nextCursor` until it is missing (ACP-ALL-LIST-03; `""` is a valid
   * cursor). Cursors are opaque (ACP-ALL-LIST-04).
   */
  async *listSessions(options: ListSessionsOptions = {}): AsyncGenerator<SessionInfo, void, undefined> {
    this.ready();
    if (!this.maySend(Methods.sessionList))
      throw new AcpError(
        ErrorCode.MethodNotFound,
        'the agent does not advertise sessionCapabilities.list (ACP-V1-LIST-01)',
      );
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const params: ListSessionsRequest = {};
      if (options.cwd !== undefined) params.cwd = options.cwd;
      if (cursor !== undefined) params.cursor = cursor;
      if (options.archived !== undefined) {
        requireUnstable(Methods.sessionArchive, this.version, this.supports(Methods.sessionArchive));
        params.archived = options.archived;
      }
      const page = await this.call(Methods.sessionList, params);
      for (const s of page?.sessions ?? []) yield s;
      const next = page?.nextCursor;
      if (next === undefined || next === null) return;
      if (seen.has(next))
        throw new AcpError(
          ErrorCode.InternalError,
          `session/list returned cursor ${JSON.stringify(next)} twice; stopping to avoid a loop`,
        );
      seen.add(next);
      cursor = next;
    }
  }

  /** All pages of {@link listSessions}. */
  async listAllSessions(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    const out: SessionInfo[] = [];
    for await (const s of this.listSessions(options)) out.push(s);
    return out;
  }

  /** `session/close` (v1 gated by `sessionCapabilities.close`); v2 -32002 counts as closed (ACP-ALL-CLOSE-02). */
  async closeSession(sessionId: string): Promise<void> {
    const router = this.ready();
    if (!this.maySend(Methods.sessionClose))
      throw new AcpError(
        ErrorCode.MethodNotFound,
        'the agent does not advertise sessionCapabilities.close (ACP-V1-CLOSE-01)',
      );
    try {
      await this.call(Methods.sessionClose, { sessionId });
    } catch (e) {
      if (!(this.version === 2 && e instanceof AcpError && e.code === ErrorCode.ResourceNotFound)) throw e;
    }
    const s = this.session(sessionId);
    router.release(sessionId);
    s?.markClosed();
  }

  /**
   * Unstable `session/fork` (needs the agent's `fork` capability, ACP-V1-FORK-01): a new session
   * with a copy of `sessionId`'s history, opened on this connection like {@link newSession}
   * (`options.signal` withdraws it the same way).
   */
  async forkSession(sessionId: string, options: NewSessionOptions): Promise<ClientSession> {
    this.ready();
    requireUnstable(Methods.sessionFork, this.version, this.supports(Methods.sessionFork));
    const params: ForkSessionRequest = { sessionId, ...this.setupParams(options) };
    return this.openSession(Methods.sessionFork, params, options);
  }

  /** Unstable `session/archive` (the agent's `archive` capability): hidden from `session/list` by default. */
  async archiveSession(sessionId: string): Promise<void> {
    const router = this.ready();
    requireUnstable(Methods.sessionArchive, this.version, this.supports(Methods.sessionArchive));
    await this.call(Methods.sessionArchive, { sessionId });
    // the agent closed it (as session/close would)
    const s = this.session(sessionId);
    router.release(sessionId);
    s?.markClosed();
  }

  /** Unstable `session/unarchive` (the agent's `archive` capability). */
  async unarchiveSession(sessionId: string): Promise<void> {
    this.ready();
    requireUnstable(Methods.sessionUnarchive, this.version, this.supports(Methods.sessionUnarchive));
    await this.call(Methods.sessionUnarchive, { sessionId });
  }

  /**
   * Unstable `session/status` (the agent's `status` capability): `open` or `saved`; a status this
   * client does not know reads as `saved` (the schema's rule). v2 adds the foreground state.
   */
  async sessionStatus(sessionId: string): Promise<SessionStatusResponse> {
    this.ready();
    requireUnstable(Methods.sessionStatus, this.version, this.supports(Methods.sessionStatus));
    const res = await this.call(Methods.sessionStatus, { sessionId });
    return res.status === 'open' || res.status === 'saved' ? res : { ...res, status: 'saved' };
  }

  /** Unstable `session/set_title` (the agent's `title` capability): the title the agent stored. */
  async setSessionTitle(sessionId: string, title: string): Promise<string> {
    this.ready();
    requireUnstable(Methods.sessionSetTitle, this.version, this.supports(Methods.sessionSetTitle));
    const res = await this.call(Methods.sessionSetTitle, { sessionId, title });
    return res.title;
  }

  // ---- unstable auth status and providers ---------------------------------------------------

  get lastAuthStatus(): AuthStatus | undefined {
    return this.authState;
  }

  async authStatus(): Promise<AuthStatus> {
    this.ready();
    requireAuthProviders(Methods.authStatus, this.supports(Methods.authStatus));
    // recorded when the answer is read, so an update that follows it is applied after it
    return this.callAt(Methods.authStatus, {}, (r) => {
      this.authState = readAuthStatus(r);
      return this.authState;
    });
  }

  async listProviders(): Promise<ProviderInfo[]> {
    this.ready();
    requireAuthProviders(Methods.providersList, this.supports(Methods.providersList));
    const { providers } = await this.call(Methods.providersList, {});
    this.requiredProviders = new Set(providers.filter((p) => p.required).map((p) => p.providerId));
    return providers;
  }

  async setProvider(request: SetProviderRequest): Promise<void> {
    this.ready();
    requireAuthProviders(Methods.providersSet, this.supports(Methods.providersSet));
    await this.call(Methods.providersSet, request);
  }

  async disableProvider(providerId: string): Promise<void> {
    this.ready();
    requireAuthProviders(Methods.providersDisable, this.supports(Methods.providersDisable));
    // the schema: clients must not call providers/disable for a required provider
    if (this.requiredProviders.has(providerId))
      throw AcpError.invalidParams(`provider ${JSON.stringify(providerId)} is required and cannot be disabled`, {
        path: 'params.providerId',
      });
    await this.call(Methods.providersDisable, { providerId });
  }

  /** `session/delete`, only when the agent advertises it (ACP-ALL-DEL-01). */
  async deleteSession(sessionId: string): Promise<void> {
    const router = this.ready();
    if (!this.supports(Methods.sessionDelete))
      throw new AcpError(ErrorCode.MethodNotFound, 'the agent does not advertise session delete (ACP-ALL-DEL-01)');
    try {
      await this.call(Methods.sessionDelete, { sessionId });
    } catch (e) {
      if (!(this.version === 2 && e instanceof AcpError && e.code === ErrorCode.ResourceNotFound)) throw e;
    }
    const s = this.session(sessionId);
    router.release(sessionId);
    s?.markClosed();
  }

  /** Sends an extension request (`_`-prefixed, ACP-ALL-EXT-04) as is. */
  extRequest<R = unknown>(method: `_${string}`, params?: unknown, options?: RequestOptions): Promise<R> {
    return this.peer.request<R>(method, params, options);
  }
  /** Sends an extension notification as is. */
  extNotify(method: `_${string}`, params?: unknown): void {
    this.peer.notify(method, params);
  }

  /**
   * Ends the connection: pending calls reject, sessions close, and a spawned agent's whole
   * process group is terminated (SIGTERM, then SIGKILL).
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.closing = (async () => {
        this.peer.close({ reason: 'closed locally' });
        await this.agent?.kill();
      })();
    }
    return this.closing;
  }

  // ---- internals ------------------------------------------------------------------------------

  /** @internal neutral request through the codec, typed by the method table */
  async call<M extends AgentMethod>(method: M, params: ParamsOf<M>, options?: RequestOptions): Promise<ResultOf<M>> {
    return this.callAt(method, params, (r) => r, options);
  }

  /**
   * @internal A neutral request whose decoded result goes through `atAnswer` synchronously when
   * the response is read, before any later message is handled (the promise settles later, after
   * the rest of that read). `atAnswerError` does the same for an error answer; without it the
   * call rejects with the error.
   */
  async callAt<M extends AgentMethod, T>(
    method: M,
    params: ParamsOf<M>,
    atAnswer: (result: ResultOf<M>) => T,
    options: RequestOptions = {},
    atAnswerError?: (error: AcpError) => T,
  ): Promise<T> {
    const codec = this.codec;
    if (!codec) throw new AcpError(ErrorCode.InvalidRequest, 'not initialized');
    const wire = codec.wireMethod(method);
    if (wire === undefined)
      throw new AcpError(ErrorCode.MethodNotFound, `${method} is not part of ACP v${codec.version}`);
    let done: { value: T } | { error: unknown } | undefined;
    const onAnswer = (answer: { result: unknown } | { error: AcpError }): void => {
      try {
        if ('error' in answer) done = atAnswerError ? { value: atAnswerError(answer.error) } : { error: answer.error };
        else done = { value: atAnswer(codec.decodeResult(method, answer.result)) };
      } catch (e) {
        done = { error: e };
      }
    };
    try {
      await this.peer.request(wire, codec.encodeParams(method, params), { ...options, onAnswer });
    } catch (e) {
      if (!done) throw e; // closed or aborted before an answer
    }
    if (!done) throw new AcpError(ErrorCode.InternalError, `${method}: the answer was not seen`);
    if ('error' in done) throw done.error;
    return done.value;
  }

  private notifyNeutral<M extends keyof AgentNotifications>(method: M, params: AgentNotifications[M]): void {
    const codec = this.codec;
    if (!codec) return;
    const wire = codec.wireMethod(method);
    if (wire !== undefined) this.peer.notify(wire, codec.encodeParams(method, params));
  }

  private ready(): UpdateRouter {
    if (this.peer.isClosed) throw new ConnectionClosedError({ reason: 'connection closed' });
    if (!this.router) throw new AcpError(ErrorCode.InvalidRequest, 'not initialized');
    return this.router;
  }

  private setupParams(options: NewSessionOptions): NewSessionRequest {
    if (typeof options.cwd !== 'string' || !isAbsolute(options.cwd)) {
      throw AcpError.invalidParams(
        `params.cwd must be an absolute path (got ${JSON.stringify(options.cwd)}, ACP-ALL-SESS-03)`,
        { path: 'params.cwd' },
      );
    }
    for (const [i, d] of (options.additionalDirectories ?? []).entries()) {
      if (typeof d !== 'string' || !isAbsolute(d))
        throw AcpError.invalidParams(`params.additionalDirectories[${i}] must be an absolute path (ACP-ALL-SESS-05)`, {
          path: `params.additionalDirectories[${i}]`,
        });
    }
    const mcpServers = resolveMcpServers(
      options.mcpServers ?? [],
      !!this.agentCapabilities.mcp?.acp,
      this.mcpOverAcp,
      this.version === 1 ? 'mcpCapabilities.acp' : 'session.mcp.acp',
    );
    this.checkMcpServers(mcpServers);
    const params: NewSessionRequest = { cwd: options.cwd, mcpServers };
    if (options.additionalDirectories && options.additionalDirectories.length > 0) {
      if (!this.agentCapabilities.session?.additionalDirectories) {
        throw new AcpError(
          ErrorCode.InvalidRequest,
          'the agent does not advertise additionalDirectories support (ACP-ALL-SESS-05)',
        );
      }
      params.additionalDirectories = options.additionalDirectories;
    }
    if (options._meta) params._meta = options._meta;
    return params;
  }

  /**
   * MCP transports are sent only when the agent advertises them (ACP-V1-SESS-02, ACP-V2-SESS-02):
   * v1 stdio is baseline (ACP-V1-SESS-01), http/sse need `mcpCapabilities`; v2 stdio and http need
   * `session.mcp.*` and has no SSE. Custom (`_`) transports have no marker and are left to the agent.
   */
  private checkMcpServers(servers: readonly McpServer[]): void {
    if (!Array.isArray(servers))
      throw AcpError.invalidParams('params.mcpServers must be an array', { path: 'params.mcpServers' });
    const mcp = this.agentCapabilities.mcp ?? {};
    servers.forEach((server, i) => {
      const type: unknown = (isObj(server) ? server.type : undefined) ?? 'stdio';
      const ok =
        type === 'stdio'
          ? this.version === 1 || !!mcp.stdio
          : type === 'http'
            ? !!mcp.http
            : type === 'sse'
              ? this.version === 1 && !!mcp.sse
              : type === 'acp'
                ? !!mcp.acp
                : typeof type === 'string' && type.startsWith('_');
      if (!ok) {
        throw AcpError.invalidParams(
          `params.mcpServers[${i}]: the agent does not advertise ${JSON.stringify(type)} MCP servers (${this.version === 1 ? 'ACP-V1-SESS-02' : 'ACP-V2-SESS-02'})`,
          {
            path: `params.mcpServers[${i}].type`,
          },
        );
      }
    });
  }

  private makeSession(sessionId: string, options: NewSessionOptions): ClientSession {
    const host: ClientSessionHost = {
      protocolVersion: this.protocolVersion,
      agentCapabilities: this.agentCapabilities,
      supports: (m) => this.supports(m),
      defaultPermissionPolicy: this.options.permissionPolicy,
      call: (m, p, o) => this.call(m, p, o),
      callAt: (m, p, atAnswer, atAnswerError) => this.callAt(m, p, atAnswer, {}, atAnswerError),
      notify: (m, p) => this.notifyNeutral(m, p),
      closeSession: (id) => this.closeSession(id),
      forkSession: (id, o) => this.forkSession(id, o),
      archiveSession: (id) => this.archiveSession(id),
      unarchiveSession: (id) => this.unarchiveSession(id),
      sessionStatus: (id) => this.sessionStatus(id),
      setSessionTitle: (id, t) => this.setSessionTitle(id, t),
      startTurn: (id) => this.router?.startTurn(id),
      closedError: this.closedError,
    };
    return new ClientSession(
      host,
      sessionId,
      options.cwd,
      options.additionalDirectories ?? [],
      options.permissionPolicy,
    );
  }

  private onUpdate(params: unknown): void {
    if (!this.router) {
      // before the initialize response was read (agents should not, but keep order anyway; bounded)
      if (this.early.length < (this.options.maxBufferedUpdates ?? 10_000)) this.early.push(params);
      else if (!this.earlyDropped) {
        this.earlyDropped = true;
        this.problem({
          kind: 'unknown-session',
          message: 'too many session/update notifications before the initialize response; dropping the rest',
        });
      }
      return;
    }
    this.router.route(params);
  }

  private async onRequest(wireMethod: string, params: unknown, ctx: RequestContext): Promise<unknown> {
    const codec = this.codec;
    if (!codec) throw AcpError.invalidRequest(`${wireMethod} before initialize completed`);
    const method = codec.neutralMethod(wireMethod);
    if (!this.handles(method) || codec.wireMethod(method) !== wireMethod || !this.serves(method))
      throw AcpError.methodNotFound(wireMethod);
    return this.dispatch(codec, method, params, ctx);
  }

  private handles(method: string): method is ClientMethod {
    return Object.hasOwn(this.handlers, method);
  }

  /** The v1 client services are served only when the connection was opened with them (and advertised them). */
  private serves(method: ClientMethod): boolean {
    if (method.startsWith('fs/')) return !!this.options.fileSystem;
    if (method.startsWith('terminal/')) return !!this.options.terminals;
    if (method === 'elicitation/create') return !!this.options.elicitation;
    return true;
  }

  private async dispatch<M extends ClientMethod>(
    codec: WireCodec,
    method: M,
    params: unknown,
    ctx: RequestContext,
  ): Promise<unknown> {
    const handler: ClientHandler<M> = this.handlers[method];
    const result = await handler(codec.decodeParams(method, params), ctx);
    return codec.encodeResult(method, result);
  }

  /**
   * What this client answers, by neutral method (one table typed through `ClientMethods`). The
   * v1 client services exist only when the connection was opened with them (and v2 has no such
   * methods: the codec maps none of them, so they never get here).
   */
  private readonly handlers: { [M in ClientMethod]: ClientHandler<M> } = {
    // MCP over ACP: the inner request goes to the server this client declared (unknown id: -33001)
    'mcp/message': (req, ctx) =>
      this.mcpOverAcp.handle(req, ctx.signal, (method, params) =>
        this.notifyNeutral('mcp/message', {
          serverId: req.serverId,
          requestId: req.requestId,
          method,
          ...(params ? { params } : {}),
        }),
      ),
    'session/request_permission': async (req, ctx) => ({
      outcome: await this.sessionOrThrow(req.sessionId).requestPermission(req, ctx.signal),
    }),
    'fs/read_text_file': (req) => this.fileSystemOf(req.sessionId).readTextFile(req),
    'fs/write_text_file': (req) => this.fileSystemOf(req.sessionId).writeTextFile(req),
    'terminal/create': (req) => this.terminalsOf(req.sessionId).create(req),
    'terminal/output': (req) => this.terminalsOf(req.sessionId).output(req.terminalId, req.sessionId),
    'terminal/wait_for_exit': (req, ctx) =>
      this.terminalsOf(req.sessionId).waitForExit(req.terminalId, ctx.signal, req.sessionId),
    'terminal/kill': async (req) => (await this.terminalsOf(req.sessionId).kill(req.terminalId, req.sessionId), {}),
    'terminal/release': async (req) => (
      await this.terminalsOf(req.sessionId).release(req.terminalId, req.sessionId),
      {}
    ),
    // session-scoped ones are tracked on their session (a v1 one may name no scope at all)
    'elicitation/create': (req, ctx) =>
      this.elicitations.answer(
        req,
        ctx.signal,
        req.sessionId !== undefined ? this.sessionOrThrow(req.sessionId) : undefined,
      ),
  };

  private fileSystemOf(sessionId: string): FileSystemSandbox {
    const session = this.sessionOrThrow(sessionId);
    const fsOpts = typeof this.options.fileSystem === 'object' ? this.options.fileSystem : undefined;
    return (session.fileSystem ??= FileSystemSandbox.forSession(session, fsOpts));
  }

  private terminalsOf(sessionId: string): TerminalManager {
    const session = this.sessionOrThrow(sessionId);
    const tOpts = typeof this.options.terminals === 'object' ? this.options.terminals : {};
    return (session.terminals ??= new TerminalManager({
      ...tOpts,
      roots: [session.cwd, ...session.additionalDirectories],
    }));
  }

  private sessionOrThrow(sessionId: unknown): ClientSession {
    const s = typeof sessionId === 'string' ? this.session(sessionId) : undefined;
    if (!s) {
      this.problem({
        kind: 'unknown-session',
        sessionId: typeof sessionId === 'string' ? sessionId : undefined,
        message: `request for unknown session ${JSON.stringify(sessionId)}`,
      });
      throw AcpError.sessionNotFound(String(sessionId));
    }
    return s;
  }

  /** `elicitation/complete`: checked like any message; unknown ids are ignored (ACP-ALL-ELIC-09). */
  private onElicitationComplete(params: unknown): void {
    const codec = this.codec;
    if (!codec) return;
    try {
      this.elicitations.complete(codec.decodeParams(Methods.elicitationComplete, params));
    } catch (e) {
      this.problem({
        kind: 'invalid-message',
        message: `elicitation/complete: ${e instanceof Error ? e.message : String(e)}`,
        detail: params,
      });
    }
  }

  /** `auth/status_update` (unstable): kept as {@link lastAuthStatus} and emitted as `authStatus`. */
  private onAuthStatusUpdate(params: unknown): void {
    const codec = this.codec;
    if (!codec) return;
    try {
      if (!this.supports(Methods.authStatus))
        throw new Error('the agent does not advertise auth.status, so it must not send auth/status_update');
      const status = readAuthStatus(codec.decodeParams(Methods.authStatusUpdate, params));
      this.authState = status;
      this.emitter.emit('authStatus', status);
    } catch (e) {
      this.problem({
        kind: 'invalid-message',
        message: `auth/status_update: ${e instanceof Error ? e.message : String(e)}`,
        detail: params,
      });
    }
  }

  private problem(p: ClientProblem): void {
    this.emitter.emit('problem', p);
  }

  private onClosed(info: CloseInfo): void {
    const err = new ConnectionClosedError(info);
    this.rejectClosed(err);
    void this.mcpOverAcp.close();
    for (const s of this.router?.all.values() ?? []) s.markClosed(err);
    this.emitter.emit('close', info);
  }
}

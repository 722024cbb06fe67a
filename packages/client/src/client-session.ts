import {
  AcpError,
  ErrorCode,
  type AnyContentBlock,
  type AgentMethod,
  type AgentNotifications,
  type ParamsOf,
  type ResultOf,
  type AgentCapabilities,
  type ConfigOption,
  type PermissionOutcome,
  type PermissionRequest,
  type StopReason,
  type AnySessionUpdate,
  type ErrorObject,
  type StateUpdate,
  type SessionStatusResponse,
  SessionState,
  type StateChangeListener,
  type CreateElicitationRequest,
  type TurnUsage,
} from '@acp-kit/protocol';
import type { NewSessionOptions } from './options.js';
import type { RequestOptions } from '@acp-kit/protocol/rpc';
import { createPromptLifecycle, type PromptContext, type PromptLifecycle } from './prompt-lifecycle.js';
import type { FileSystemSandbox } from './services/fs-sandbox.js';
import { decidePermission, denyAll, type PermissionPolicy } from './services/permission-policy.js';
import type { ClientTerminalInfo, TerminalManager } from './services/terminals.js';
import { isObj } from '@acp-kit/protocol/internal';

/** How a prompt's foreground work ended. */
export interface PromptResult {
  /** From the v1 prompt response or the v2 idle `state_update`; `null` when the agent reported none. */
  stopReason: StopReason | null;
  /**
   * The JSON-RPC error object of an `error` stop: v2's idle `state_update` error, or the error a
   * v1 agent answered `session/prompt` with (one outcome for both versions).
   */
  error?: ErrorObject;
  /** v2: the agent-minted id of the inserted user message (ACP-V2-LIFE-11). */
  userMessageId?: string;
  /** v1 (unstable): the turn's token usage, when the agent reported it on the prompt result. */
  usage?: TurnUsage;
}

/** Options of {@link ClientSession.prompt}. */
export interface PromptOptions {
  /** Aborting sends `session/cancel` (the prompt then resolves with the agent's `cancelled`). */
  signal?: AbortSignal;
}

/** What a client session needs from the connection it was opened on (not the agent runtime's `AgentSessionHost`). @internal */
export interface ClientSessionHost {
  readonly protocolVersion: 1 | 2;
  readonly agentCapabilities: AgentCapabilities;
  /** Whether the agent has `method` on this connection (`ClientConnection.supports`). */
  supports(method: AgentMethod): boolean;
  readonly defaultPermissionPolicy: PermissionPolicy | undefined;
  call<M extends AgentMethod>(method: M, params: ParamsOf<M>, options?: RequestOptions): Promise<ResultOf<M>>;
  /** `call` whose answer (or error answer) is handled synchronously when it is read (wire order). */
  callAt<M extends AgentMethod, T>(
    method: M,
    params: ParamsOf<M>,
    atAnswer: (result: ResultOf<M>) => T,
    atAnswerError?: (error: AcpError) => T,
  ): Promise<T>;
  notify<M extends keyof AgentNotifications>(method: M, params: AgentNotifications[M]): void;
  closeSession(sessionId: string): Promise<void>;
  forkSession(sessionId: string, options: NewSessionOptions): Promise<ClientSession>;
  archiveSession(sessionId: string): Promise<void>;
  unarchiveSession(sessionId: string): Promise<void>;
  sessionStatus(sessionId: string): Promise<SessionStatusResponse>;
  setSessionTitle(sessionId: string, title: string): Promise<string>;
  /** A prompt turn starts: message grouping of id-less v1 chunks restarts. */
  startTurn(sessionId: string): void;
  /** Rejects when the connection ends (with the close error). */
  readonly closedError: Promise<never>;
}

const DEFAULT_POLICY = denyAll();

interface IdleWaiter {
  after: number;
  resolve(update: StateUpdate): void;
  reject(error: unknown): void;
}

/**
 * One ACP session as the client sees it, the same for v1 and v2: a {@link SessionState} fed
 * with decoded updates (including the ones that arrived before the setup response), prompt
 * and cancel, config options and modes.
 */
export class ClientSession {
  /** The version-neutral state of the session (messages, tool calls, plans, foreground...). */
  readonly state: SessionState;
  /** The policy answering this session's permission requests (falls back to the connection's). */
  permissionPolicy: PermissionPolicy | undefined;
  /** @internal v1 client services, created by the connection on first use */
  fileSystem: FileSystemSandbox | undefined;
  /** @internal */
  terminals: TerminalManager | undefined;
  private seq = 0;
  private readonly userSeen = new Map<string, number>();
  private lastIdle: { seq: number; update: StateUpdate } | undefined;
  private lastRunningSeq = -1;
  private idleWaiters: IdleWaiter[] = [];
  private readonly pendingPermissions = new Set<AbortController>();
  /** Elicitations of this session waiting for an answer, with the controller that withdraws each. */
  private readonly pendingElicitationMap = new Map<CreateElicitationRequest, AbortController>();
  /** Set by {@link cancel} until the turn ends: permission requests asked meanwhile are answered `cancelled`. */
  private turnCancelled = false;
  /** The per-version prompt behaviour (v1 emulation of the v2 lifecycle, v2 idle tracking). */
  private readonly lifecycle: PromptLifecycle;
  private readonly promptContext: PromptContext;
  private closedFlag = false;
  /** The object that took this session over after a resume on the same connection. */
  private successor: ClientSession | undefined;

  /** @internal use `ClientConnection.newSession` / `loadSession` / `resumeSession` */
  constructor(
    private readonly host: ClientSessionHost,
    readonly sessionId: string,
    readonly cwd: string,
    readonly additionalDirectories: readonly string[],
    permissionPolicy?: PermissionPolicy,
  ) {
    this.state = new SessionState(sessionId);
    this.permissionPolicy = permissionPolicy;
    this.lifecycle = createPromptLifecycle(host.protocolVersion);
    const self = this;
    this.promptContext = {
      sessionId,
      host,
      apply: (update) => this.receive(update),
      get seq() {
        return self.seq;
      },
      get lastIdle() {
        return self.lastIdle;
      },
      get lastRunningSeq() {
        return self.lastRunningSeq;
      },
      userSeenAt: (id) => this.userSeen.get(id),
      get userEchoSeen() {
        return self.userSeen.size > 0;
      },
      get foregroundState() {
        return self.state.foreground.state;
      },
      nextIdle: () => this.nextIdle(),
    };
  }

  /** The protocol version of the connection. */
  get protocolVersion(): 1 | 2 {
    return this.host.protocolVersion;
  }

  /** True after `close()` (or the connection closed it). */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Subscribes to every applied update (same as `state.onChange`). */
  onUpdate(listener: StateChangeListener): () => void {
    return this.state.onChange(listener);
  }

  /**
   * Sends a prompt and resolves when the foreground work it started ends.
   *
   * v1: the `session/prompt` response ends the turn; the state gets a synthesized `running`
   * at send time and `idle` + stop reason at the response, so it looks like v2.
   * v2: the response only means "inserted" (ACP-V2-LIFE-10); this resolves at the first idle
   * `state_update` after insertion and returns the user message id from the response.
   * A turn that fails resolves `{stopReason: "error", error}` in both versions (v1: the agent
   * answered `session/prompt` with a JSON-RPC error). v2: a request error (the message was not
   * inserted) rejects. Both: the connection closing before the end rejects.
   */
  async prompt(content: string | AnyContentBlock[], options: PromptOptions = {}): Promise<PromptResult> {
    if (this.closedFlag) throw new AcpError(ErrorCode.InvalidRequest, `session ${this.sessionId} is closed`);
    const prompt: AnyContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
    if (prompt.length === 0)
      throw AcpError.invalidParams('prompt must contain at least one content block (ACP-V2-LIFE-14)', {
        path: 'params.prompt',
      });
    this.checkPromptCapabilities(prompt);
    const { signal } = options;
    if (signal?.aborted) throw AcpError.cancelled('the prompt was aborted before it was sent');
    const onAbort = (): void => this.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.turnCancelled = false;
    try {
      return await this.lifecycle.prompt(this.promptContext, prompt);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.turnCancelled = false;
    }
  }

  /** Resolves with the next idle `state_update` applied to this session. */
  nextIdle(): Promise<StateUpdate> {
    if (this.closedFlag && this.successor) return this.successor.nextIdle();
    if (this.closedFlag)
      return Promise.reject(new AcpError(ErrorCode.InvalidRequest, `session ${this.sessionId} is closed`));
    return new Promise<StateUpdate>((resolve, reject) => {
      this.idleWaiters.push({ after: this.seq, resolve, reject });
      this.host.closedError.catch(reject);
    });
  }

  /**
   * Cancels the session's foreground work: sends `session/cancel`, answers every pending
   * permission request of this session `cancelled` (ACP-V1-CANCEL-03, ACP-ALL-PERM-03) and
   * marks unfinished tool calls cancelled locally (ACP-V1-CANCEL-02); updates that follow
   * still apply (ACP-V1-CANCEL-08). The prompt resolves with the agent's stop reason.
   */
  cancel(): void {
    if (this.closedFlag) return;
    this.host.notify('session/cancel', { sessionId: this.sessionId });
    this.turnCancelled = true;
    const pending = [...this.pendingPermissions, ...this.pendingElicitationMap.values()];
    this.pendingPermissions.clear();
    this.pendingElicitationMap.clear();
    for (const c of pending) c.abort();
    this.state.markUnfinishedToolCallsCancelled();
  }

  /**
   * Sets a config option (ACP-ALL-CFG-07: select values must be offered, booleans boolean) and
   * stores the complete list the agent answers with.
   */
  async setConfigOption(configId: string, value: string | boolean): Promise<ConfigOption[]> {
    const opt = this.state.configOptions.find((o) => o.configId === configId);
    if (opt?.type === 'select') {
      const values = selectValues(opt);
      if (typeof value !== 'string' || !values.includes(value)) {
        throw AcpError.invalidParams(
          `value must be one of ${values.map((v) => JSON.stringify(v)).join(', ')} for config option ${JSON.stringify(configId)}`,
          { path: 'params.value' },
        );
      }
    } else if (opt?.type === 'boolean' && typeof value !== 'boolean') {
      throw AcpError.invalidParams(`value must be a boolean for config option ${JSON.stringify(configId)}`, {
        path: 'params.value',
      });
    }
    const res = await this.host.call('session/set_config_option', { sessionId: this.sessionId, configId, value });
    if (Array.isArray(res?.configOptions))
      this.receive({ sessionUpdate: 'config_option_update', configOptions: res.configOptions });
    return this.state.configOptions;
  }

  /**
   * Switches the mode: through the `category: "mode"` config option when there is one (v2
   * always, v1 preferred, ACP-V1-CFG-03), else v1 `session/set_mode`.
   */
  async setMode(modeId: string): Promise<void> {
    const modeOption = this.state.configOptions.find((o) => o.category === 'mode');
    if (modeOption) {
      await this.setConfigOption(modeOption.configId, modeId);
      return;
    }
    if (!this.host.supports('session/set_mode'))
      throw new AcpError(
        ErrorCode.InvalidRequest,
        'the agent offers no config option with category "mode" (ACP-V2-CFG-04)',
      );
    const modes = this.state.modes;
    if (!modes) throw new AcpError(ErrorCode.InvalidRequest, 'the agent returned no modes for this session');
    if (!modes.availableModes.some((m) => m.id === modeId)) {
      throw AcpError.invalidParams(
        `modeId must be one of ${modes.availableModes.map((m) => JSON.stringify(m.id)).join(', ')} (ACP-V1-MODE-02)`,
        { path: 'params.modeId' },
      );
    }
    await this.host.call('session/set_mode', { sessionId: this.sessionId, modeId });
    this.receive({ sessionUpdate: 'current_mode_update', currentModeId: modeId });
  }

  /** v2: asks the agent to cancel one tool call; only while it advertises `capabilities.cancel` (ACP-V2-TOOL-11). */
  async cancelToolCall(toolCallId: string): Promise<void> {
    const tc = this.state.toolCalls.get(toolCallId);
    if (!this.host.supports('tool_call/cancel') || tc?.capabilities?.cancel == null) {
      throw new AcpError(
        ErrorCode.InvalidRequest,
        `tool call ${JSON.stringify(toolCallId)} does not advertise capabilities.cancel`,
      );
    }
    await this.host.call('tool_call/cancel', { sessionId: this.sessionId, toolCallId });
  }

  /** v2: asks the agent to cancel a display terminal's command (ACP-V2-TERM-13). */
  async cancelTerminal(terminalId: string): Promise<void> {
    const t = this.state.terminals.get(terminalId);
    if (!this.host.supports('terminal/cancel') || t?.capabilities?.cancel == null) {
      throw new AcpError(
        ErrorCode.InvalidRequest,
        `terminal ${JSON.stringify(terminalId)} does not advertise capabilities.cancel`,
      );
    }
    await this.host.call('terminal/cancel', { sessionId: this.sessionId, terminalId });
  }

  /**
   * v1: a command the agent runs through this client (`terminal/create`, served when the
   * connection was opened with `terminals`): the command and args the agent asked for, its cwd,
   * the output retained so far, `truncated`, and the exit status once it exited. `undefined` for
   * an unknown id and once the agent released the terminal (ACP-V1-TERM-08).
   *
   * Each call decodes the retained output (up to `outputByteLimit` bytes), so from the
   * `terminals.onOutput` callback, which runs per chunk and only passes the terminal id, look the
   * command up once per terminal (calling this per chunk makes a long output quadratic):
   * ```ts
   * const commands = new Map<string, string>();
   * onOutput: (id, text) => {
   *   let command = commands.get(id);
   *   if (command === undefined) {
   *     const t = session.clientTerminal(id);
   *     if (t) commands.set(id, (command = [t.command, ...t.args].join(' ')));
   *   }
   *   show(`$ ${command ?? id}`, text);
   * }
   * ```
   * Display terminals an agent reports with `terminal_update` (v2) are in `state.terminals`.
   */
  clientTerminal(terminalId: string): ClientTerminalInfo | undefined {
    return this.terminals?.snapshot(terminalId);
  }

  /** Closes the session (`session/close`). */
  close(): Promise<void> {
    return this.host.closeSession(this.sessionId);
  }

  /**
   * Unstable `session/fork`: a new session with a copy of this one's history (same cwd and
   * directories unless `options` says otherwise). Fails naming the capability when the agent
   * does not advertise `fork`.
   */
  fork(options: Partial<NewSessionOptions> = {}): Promise<ClientSession> {
    return this.host.forkSession(this.sessionId, {
      cwd: this.cwd,
      additionalDirectories: [...this.additionalDirectories],
      ...options,
    });
  }

  /** Unstable `session/archive`: the agent closes the session and hides it from `session/list`. */
  archive(): Promise<void> {
    return this.host.archiveSession(this.sessionId);
  }

  /** Unstable `session/unarchive`. */
  unarchive(): Promise<void> {
    return this.host.unarchiveSession(this.sessionId);
  }

  /** Unstable `session/status`: `open` or `saved` (v2 with the foreground state). */
  status(): Promise<SessionStatusResponse> {
    return this.host.sessionStatus(this.sessionId);
  }

  /**
   * Unstable `session/set_title`: resolves with the title the agent stored (it may normalize it);
   * the agent's `session_info_update` brings it into {@link state}.
   */
  setTitle(title: string): Promise<string> {
    return this.host.setSessionTitle(this.sessionId, title);
  }

  // ---- connection-facing -------------------------------------------------------------------

  /** @internal applies one decoded update, in arrival order */
  receive(update: AnySessionUpdate): void {
    const seq = ++this.seq;
    if (update.sessionUpdate === 'user_message' || update.sessionUpdate === 'user_message_chunk') {
      const id = update.messageId;
      if (typeof id === 'string' && !this.userSeen.has(id)) this.userSeen.set(id, seq);
    }
    this.state.apply(update);
    if (update.sessionUpdate === 'state_update') {
      const su = update;
      if (su.state === 'idle') {
        this.lastIdle = { seq, update: su };
        if (this.idleWaiters.length > 0) {
          const ready = this.idleWaiters.filter((w) => w.after < seq);
          this.idleWaiters = this.idleWaiters.filter((w) => w.after >= seq);
          for (const w of ready) w.resolve(su);
        }
      } else if (su.state === 'running' || su.state === 'requires_action') {
        this.lastRunningSeq = seq;
      }
    }
  }

  /**
   * @internal a permission request for this session (ACP-V2-PERM-02: the tool call applies first).
   * A v1 request has no title of its own: the codec takes the `toolCall` patch's title, but a
   * patch often carries only the id (ACP-V1-PERM-01), and then the merged tool call's title —
   * known only here — is the title the policy and UIs see.
   */
  async requestPermission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionOutcome> {
    const subject = request.subject;
    let toolCallId: string | undefined;
    // (checked at run time: the codec keeps what the agent sent)
    if (subject?.type === 'tool_call' && isObj(subject.toolCall) && typeof subject.toolCall.toolCallId === 'string') {
      toolCallId = subject.toolCall.toolCallId;
      this.receive({ ...subject.toolCall, sessionUpdate: 'tool_call_update' });
      request = this.lifecycle.permissionRequest(
        request,
        subject.toolCall.title,
        this.state.toolCalls.get(toolCallId)?.title,
      );
    }
    const own = new AbortController();
    // asked after our cancel but before the turn ended: it belongs to the cancelled work (ACP-ALL-PERM-03)
    if (this.turnCancelled) own.abort();
    this.pendingPermissions.add(own);
    try {
      const tc = toolCallId !== undefined ? this.state.toolCalls.get(toolCallId) : undefined;
      const policy = this.permissionPolicy ?? this.host.defaultPermissionPolicy ?? DEFAULT_POLICY;
      return await decidePermission(policy, request, {
        signal: AbortSignal.any([signal, own.signal]),
        ...(tc ? { toolCall: { kind: tc.toolKind, name: tc.name ?? null, title: tc.title ?? null } } : {}),
      });
    } finally {
      this.pendingPermissions.delete(own);
    }
  }

  /**
   * @internal an elicitation for this session: pending (see {@link pendingElicitations}) while
   * `decide` runs; {@link cancel} or the session closing withdraws it (the answer is then `cancel`).
   */
  async trackElicitation<T>(
    request: CreateElicitationRequest,
    signal: AbortSignal,
    decide: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const own = new AbortController();
    // asked after our cancel but before the turn ended: it belongs to the cancelled work
    if (this.turnCancelled || this.closedFlag) own.abort();
    this.pendingElicitationMap.set(request, own);
    try {
      return await decide(AbortSignal.any([signal, own.signal]));
    } finally {
      this.pendingElicitationMap.delete(request);
    }
  }

  /** Elicitations of this session waiting for an answer, oldest first (for UIs). */
  get pendingElicitations(): CreateElicitationRequest[] {
    return [...this.pendingElicitationMap.keys()];
  }

  /** Number of permission requests waiting for an answer. */
  get pendingPermissionCount(): number {
    return this.pendingPermissions.size;
  }

  /**
   * @internal The same session was resumed (or loaded) on this connection into `successor`: this
   * object is closed, but work the agent keeps running (a v2 resume keeps the turn) is still the
   * same session, so prompts waiting for their idle wait for it on the successor instead of
   * reporting a cancel that never happened.
   */
  supersede(successor: ClientSession): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.successor = successor;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) successor.nextIdle().then(w.resolve, w.reject);
    // pending permission requests stay with their policy: the agent withdraws them if the resume ended their turn
    void this.terminals?.releaseAll();
  }

  /**
   * @internal The session ended: closed by the client (a prompt still waiting for its idle ends
   * `cancelled`, ACP-ALL-CLOSE-01) or lost with the connection (`error`: waiting prompts reject).
   */
  markClosed(error?: unknown): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const c of [...this.pendingPermissions, ...this.pendingElicitationMap.values()]) c.abort();
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) {
      if (error !== undefined) w.reject(error);
      else w.resolve({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' });
    }
    void this.terminals?.releaseAll();
  }

  private checkPromptCapabilities(prompt: AnyContentBlock[]): void {
    const caps = this.host.agentCapabilities.prompt ?? {};
    prompt.forEach((b, i) => {
      const need =
        b.type === 'image'
          ? 'image'
          : b.type === 'audio'
            ? 'audio'
            : b.type === 'resource'
              ? 'embeddedContext'
              : undefined;
      if (need && !caps[need]) {
        throw AcpError.invalidParams(
          `params.prompt[${i}]: the agent does not accept ${b.type} content (prompt capability ${need} not advertised, ACP-ALL-CONT-02)`,
          { path: `params.prompt[${i}]` },
        );
      }
    });
  }
}

function selectValues(opt: ConfigOption): string[] {
  const out: string[] = [];
  const options = 'options' in opt && Array.isArray(opt.options) ? opt.options : [];
  for (const o of options) {
    if (!isObj(o)) continue;
    if (typeof o.value === 'string') out.push(o.value);
    if (Array.isArray(o.options))
      for (const g of o.options) if (isObj(g) && typeof g.value === 'string') out.push(g.value);
  }
  return out;
}

import {
  AcpError,
  isAbortError,
  type WireCodec,
  type UpdateEncoder,
  type AnyContentBlock,
  type PromptResponse,
  type ConfigOption,
  type McpServer,
  type PermissionOutcome,
  type AnySessionUpdate,
  type ErrorObject,
  type SessionUpdate,
  type StateUpdate,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
} from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';
import type { McpOverAcpChannel } from './mcp-over-acp.js';
import { checkConfigValue, configValues, modeOption, withValue } from './config-options.js';
import { SessionElicitations, type ElicitationMode, type ElicitationTarget } from './elicitation.js';
import type { AgentLifecycle, PromptJob, TurnEnd } from './lifecycle/index.js';
import type { AgentLogger } from './logger.js';
import { isHistoryUpdate, isPending, storeError, type SessionStore } from './session-store.js';
import { abortError, TurnRuntime } from './turn.js';
import type {
  AgentDefinition,
  AgentSession,
  ClientPeerInfo,
  ClientServices,
  PermissionQuestion,
  TurnResult,
} from './types.js';

/** What an agent session needs from the connection that serves it (the client side has its own, `ClientSessionHost`). */
export interface AgentSessionHost {
  /** The negotiated version's prompt lifecycle: every per-version choice of a session is its. */
  readonly lifecycle: AgentLifecycle;
  readonly codec: WireCodec;
  readonly definition: AgentDefinition;
  readonly store: SessionStore;
  readonly logger: AgentLogger;
  readonly client: ClientPeerInfo;
  readonly maxHeldPrompts: number;
  readonly cancelTimeoutMs: number;
  /** Writes `session/update`s already encoded by the session's encoder (one per wire update). */
  sendWires(sessionId: string, wires: readonly object[]): void;
  askPermission(session: SessionRuntime, question: PermissionQuestion, signal: AbortSignal): Promise<PermissionOutcome>;
  /** Sends `elicitation/create` to this connection's client; aborting `signal` sends `$/cancel_request`. */
  elicit(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
  /** Sends `elicitation/complete` to this connection's client. */
  completeElicitation(elicitationId: string): void;
  whenWritable(): Promise<void>;
  clientServices(sessionId: string): ClientServices;
  /** This connection's way to the client's MCP-over-ACP servers. */
  readonly mcpOverAcp: McpOverAcpChannel;
  /** The session was closed for every attached connection (`session/delete`, the last one leaving): forget it. */
  sessionEnded(session: SessionRuntime): void;
}

/**
 * One client connection a session's output goes to. A session has one per connection that has it
 * open: one for a v1 or a stdio session, several for a v2 session shared through
 * {@link SharedSessions}. Every attachment gets the same wire updates in the same order (encoded
 * once): while `pending` (a joiner whose replay is still being written) they are held for it.
 */
export class SessionAttachment {
  /** Live updates held back while the joiner's replay is written; `undefined`: delivered at once. */
  private pending: (readonly object[])[] | undefined;

  constructor(
    readonly host: AgentSessionHost,
    private readonly sessionId: string,
    buffered: boolean,
  ) {
    this.pending = buffered ? [] : undefined;
  }

  /** Whether live updates go out at once (not held for a replay). */
  get live(): boolean {
    return this.pending === undefined;
  }

  deliver(wires: readonly object[]): void {
    if (wires.length === 0) return;
    if (this.pending) this.pending.push(wires);
    else this.host.sendWires(this.sessionId, wires);
  }

  /** The replay is written: what was held goes out in order, later updates directly. */
  flush(): void {
    const held = this.pending;
    this.pending = undefined;
    for (const wires of held ?? []) this.host.sendWires(this.sessionId, wires);
  }
}

/** A permission question open on a session: `ask` puts it to one more connection. */
interface OpenQuestion {
  ask(host: AgentSessionHost): void;
}

const FINAL_TOOL_STATUSES: ReadonlySet<unknown> = new Set(['completed', 'failed', 'cancelled']);

/**
 * How many writes of an asynchronous store may be outstanding before a turn's `send` waits for the
 * store (backpressure: a turn cannot outrun its database without bound). Large enough that a store
 * batching the writes of a tick is not slowed to one round trip per update.
 */
const STORE_WINDOW = 256;

/** Output waiting for the store writes issued before it (`after`: how many were issued then). */
interface HeldOutput {
  after: number;
  /** `failure`: the store failed meanwhile (wire updates are then dropped: they were never persisted). */
  run(failure: AcpError | undefined): void;
}

export interface SessionInit {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  mcpServers: McpServer[];
  /** Restored sessions mint ids with an epoch so they never repeat ids of the stored history. */
  restored: boolean;
}

/**
 * One open session on one connection: the author's {@link AgentSession}, its prompt queue and the
 * running turn; how a turn is answered and reported is the host's {@link AgentLifecycle}.
 */
export class SessionRuntime implements AgentSession {
  readonly sessionId: string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  readonly mcpServers: readonly McpServer[];
  /*
   * Maps and helpers below are created when first needed: a server holds many idle sessions, and an
   * empty Map costs ~190 bytes.
   */
  private dataMap: Map<string, unknown> | undefined;
  /** The author's per-session state (created on first use). */
  get data(): Map<string, unknown> {
    return (this.dataMap ??= new Map<string, unknown>());
  }
  configOptions: ConfigOption[] = [];
  encoder: UpdateEncoder;
  private seq = 0;
  private readonly epoch: string;
  private active: TurnRuntime | undefined;
  private activeDone: Promise<void> | undefined;
  private held: PromptJob[] = [];
  private closing = false;
  closed = false;
  private toolCancels: Map<string, () => void | Promise<void>> | undefined;
  private terminalCancels: Map<string, () => void | Promise<void>> | undefined;
  private services: ClientServices | undefined;
  /** Fields of every tool call sent so far (by reference), to tell whether a permission subject adds any. */
  private toolCalls: Map<string, Record<string, unknown>> | undefined;
  /** Whether the encoder has seen an update (then it keeps its state: never recreated). */
  private encoderUsed = false;
  private warnedStateUpdate = false;
  /** The connections this session's output goes to, in the order they attached. */
  private readonly attachments: SessionAttachment[] = [];
  /** Permission questions waiting for an answer from any attached client. */
  private questions: Set<OpenQuestion> | undefined;
  private elicitationState: SessionElicitations | undefined;
  /** Elicitations go to one connection (ACP-ALL-ELIC-04): the first live attachment. */
  private get elicitations(): SessionElicitations {
    return (this.elicitationState ??= new SessionElicitations(
      () => this.sessionId,
      () => this.elicitationTarget(),
      () => this.newId('elicitation'),
    ));
  }
  /** History updates appended by this runtime (a joiner's replay is consistent when it did not move). */
  private appended = 0;
  // An asynchronous store (writes return promises): the wire output waits for the writes issued
  // before it, in order. With a synchronous store `issued` stays 0 and nothing is ever held.
  /** Asynchronous store writes issued / resolved (in issue order). */
  private issued = 0;
  private persisted = 0;
  private writes: Promise<void> = Promise.resolve();
  /** Output held until the writes before it are persisted, in emission order. */
  private readonly heldOutput: HeldOutput[] = [];
  private readonly persistWaiters: { upTo: number; resolve(): void }[] = [];
  /** Set when a store write failed: the turn ends `error` with it and new prompts are refused with it. */
  private storeFailure: AcpError | undefined;
  /** The foreground state of the last `state_update` the store took (live rows, a cluster's store). */
  private storedState: unknown = 'idle';

  constructor(
    private readonly host: AgentSessionHost,
    init: SessionInit,
  ) {
    this.sessionId = init.sessionId;
    this.cwd = init.cwd;
    this.additionalDirectories = Object.freeze([...init.additionalDirectories]);
    this.mcpServers = Object.freeze([...init.mcpServers]);
    this.epoch = init.restored ? `${Date.now().toString(36)}.` : '';
    this.encoder = host.codec.createUpdateEncoder({ clientCapabilities: host.client.capabilities });
    this.attachments.push(new SessionAttachment(host, this.sessionId, false));
  }

  /** How many history updates this runtime has stored so far (moves with every append). */
  get historyVersion(): number {
    return this.appended;
  }

  /** Connections currently attached. */
  get attachedCount(): number {
    return this.attachments.length;
  }

  /** The attachment of `host`, if attached. */
  attachmentOf(host: AgentSessionHost): SessionAttachment | undefined {
    return this.attachments.find((a) => a.host === host);
  }

  /**
   * Attaches another connection (a client joining a shared v2 session). `buffered`: live updates
   * are held for it until {@link SessionAttachment.flush}, so its replay goes out first and it
   * misses nothing emitted meanwhile.
   */
  attach(host: AgentSessionHost, buffered: boolean): SessionAttachment {
    const existing = this.attachmentOf(host);
    if (existing) return existing;
    const a = new SessionAttachment(host, this.sessionId, buffered);
    this.attachments.push(a);
    return a;
  }

  /** Detaches a connection (it left); returns how many remain. The session itself goes on. */
  detach(host: AgentSessionHost): number {
    const i = this.attachments.findIndex((a) => a.host === host);
    if (i >= 0) this.attachments.splice(i, 1);
    return this.attachments.length;
  }

  /** Encodes once and hands the same wire updates to every attachment, in emission order. */
  private deliver(update: AnySessionUpdate): void {
    if (this.issued !== this.persisted || this.heldOutput.length > 0) {
      // once the store failed, history held here was never persisted: dropped; live updates still go
      this.afterPersisted((failure) => (failure && isHistoryUpdate(update)) || this.deliverNow(update));
      return;
    }
    this.deliverNow(update);
  }

  private deliverNow(update: AnySessionUpdate): void {
    const wires = this.encoder.encode(update);
    for (const a of this.attachments) a.deliver(wires);
  }

  /** Sends a live update (not history) to one attachment only (a resume's state snapshot). */
  sendLiveTo(attachment: SessionAttachment, update: AnySessionUpdate): void {
    if (this.closed) return;
    this.noteToolCall(update);
    this.encoderUsed = true;
    this.afterPersisted(() => attachment.deliver(this.encoder.encode(update)));
  }

  // ---- asynchronous store -----------------------------------------------------

  /** A live-only update to the store, noting the foreground state the store holds once it took it. */
  private storedLive(update: AnySessionUpdate): void {
    const written = this.host.store.appendLive?.(this.sessionId, update);
    this.stored(written);
    if (update.sessionUpdate !== 'state_update') return;
    if (!isPending(written)) this.storedState = update.state;
    else {
      this.writes = this.writes.then(() => {
        if (!this.storeFailure) this.storedState = update.state;
      });
    }
  }

  /**
   * After a store failure, the end of the turn the store holds as still running (its end could
   * not be stored, so clients on other instances would wait for it forever): appended by whoever
   * reopens the session. None when the store holds the session idle.
   */
  get unstoredTurnEnd(): StateUpdate | undefined {
    if (!this.storeFailure || this.storedState === 'idle') return undefined;
    return { sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: this.storeFailure.toJSON() };
  }

  /** Tracks a store write; a promise holds the output that follows until it (and those before it) resolved. */
  private stored(result: void | Promise<void>): void {
    if (!isPending(result)) return;
    const n = ++this.issued;
    // chained: resolved in issue order whatever order the store settles them in
    this.writes = this.writes.then(() =>
      result.then(
        () => {
          this.persisted = n;
          this.drain();
        },
        (e: unknown) => this.failStore(e),
      ),
    );
  }

  /** Runs `run` now when nothing is held, else after the writes issued so far (in order). */
  private afterPersisted(run: (failure: AcpError | undefined) => unknown): void {
    if (this.heldOutput.length === 0 && (this.issued === this.persisted || this.storeFailure)) {
      run(this.storeFailure);
      return;
    }
    this.heldOutput.push({ after: this.issued, run });
  }

  /** Sends what the persisted writes released, in order; everything once the store failed. */
  private drain(): void {
    for (
      let held = this.heldOutput[0];
      held !== undefined && (this.storeFailure || held.after <= this.persisted);
      held = this.heldOutput[0]
    ) {
      this.heldOutput.shift();
      try {
        held.run(this.storeFailure);
      } catch (e) {
        this.host.logger.error(`session ${this.sessionId}: could not send held output: ${describeError(e)}`);
      }
    }
    // from the end, so that removing one keeps the indexes still to visit
    for (const [i, w] of [...this.persistWaiters.entries()].reverse()) {
      if (this.storeFailure || w.upTo <= this.persisted) {
        this.persistWaiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  /**
   * A store write failed: never a silent loss. The running turn is cancelled and ends `error` with
   * the store's reason, held prompts and new ones are refused with it, and updates not persisted
   * are not sent.
   */
  private failStore(e: unknown): void {
    if (!this.storeFailure) {
      this.storeFailure = storeError(e);
      this.host.logger.error(
        `session ${this.sessionId}: ${this.storeFailure.message}; the running turn ends with an error and new prompts are refused`,
      );
      this.active?.cancel('the session store failed');
      for (const job of this.held.splice(0)) {
        job.detach();
        job.reject(this.storeFailure);
      }
    }
    this.drain();
  }

  /** Resolves once the store writes issued so far are persisted (or the store failed). */
  whenPersisted(): Promise<void> {
    if (this.issued === this.persisted || this.storeFailure) return Promise.resolve();
    const upTo = this.issued;
    return new Promise<void>((resolve) => this.persistWaiters.push({ upTo, resolve }));
  }

  /** Whether a store write failed: the runtime refuses prompts from then on (a resume opens the session afresh). */
  get storeFailed(): boolean {
    return this.storeFailure !== undefined;
  }

  /** Whether every store write issued so far is persisted and its output sent. */
  get quiescent(): boolean {
    return this.issued === this.persisted && this.heldOutput.length === 0;
  }

  /**
   * A permission question goes to every live attachment, and to a client attaching while it is
   * open; the first answer wins and the others are withdrawn (`$/cancel_request`, through the
   * aborted signal). A connection that leaves meanwhile does not end the question while another can
   * still answer it; when none is left it fails like a single client's would.
   */
  private askClients(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionOutcome> {
    return new Promise<PermissionOutcome>((resolve, reject) => {
      const answered = new AbortController();
      const either = AbortSignal.any([signal, answered.signal]);
      let waiting = 0;
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.questions?.delete(open);
        answered.abort(abortError('answered by another client'));
        return true;
      };
      const open: OpenQuestion = {
        ask: (host) => {
          if (either.aborted) return;
          waiting++;
          host.askPermission(this, question, either).then(
            (outcome) => {
              if (settle()) resolve(outcome);
            },
            (e: unknown) => {
              if (--waiting === 0 && settle()) reject(e);
            },
          );
        },
      };
      (this.questions ??= new Set<OpenQuestion>()).add(open);
      const live = this.attachments.filter((a) => a.live);
      const targets = live.length > 0 ? live.map((a) => a.host) : [this.attachments[0]?.host ?? this.host];
      for (const host of targets) open.ask(host);
    });
  }

  /**
   * A joiner's replay is written: the live updates held for it go out, then the permission
   * questions still open are asked of it too.
   */
  activate(attachment: SessionAttachment): void {
    attachment.flush();
    if (!this.attachments.includes(attachment)) return;
    for (const q of [...(this.questions ?? [])]) q.ask(attachment.host);
  }

  /** Backpressure: the turn streams at the pace of the slowest attached connection. */
  private whenWritable(): Promise<void> {
    const [only] = this.attachments;
    const wire =
      this.attachments.length === 1 && only !== undefined
        ? only.host.whenWritable()
        : Promise.all(this.attachments.map((a) => a.host.whenWritable())).then(() => undefined);
    // and at the pace of an asynchronous store, once too many of its writes are outstanding
    if (this.issued - this.persisted <= STORE_WINDOW) return wire;
    return Promise.all([wire, this.whenPersisted()]).then(() => undefined);
  }

  get client(): ClientPeerInfo {
    return this.host.client;
  }
  get mcpOverAcp(): McpOverAcpChannel {
    return this.host.mcpOverAcp;
  }
  get clientServices(): ClientServices {
    return (this.services ??= this.host.clientServices(this.sessionId));
  }
  get busy(): boolean {
    return this.active !== undefined;
  }

  newId(prefix: string): string {
    return `${prefix}-${this.epoch}${++this.seq}`;
  }

  supportsElicitation(mode: ElicitationMode): boolean {
    return this.elicitations.supports(mode);
  }

  completeElicitation(elicitationId: string): boolean {
    return this.elicitations.complete(elicitationId);
  }

  /**
   * The connection an elicitation goes to: bound to one client, never broadcast like a permission
   * question (ACP-ALL-ELIC-04): the first live attachment (the opener while it is attached).
   */
  private elicitationTarget(): ElicitationTarget {
    const host = (this.attachments.find((a) => a.live) ?? this.attachments[0])?.host ?? this.host;
    return {
      client: host.client,
      elicit: (params, signal) => host.elicit(params, signal),
      completeElicitation: (id) => host.completeElicitation(id),
    };
  }

  send(update: SessionUpdate): void {
    this.emitFromAuthor(update);
  }

  /**
   * The config options `openSession` returned. An encoder that has not encoded anything yet is
   * recreated knowing them, so a v2 replay turns a stored `current_mode_update` into a
   * `config_option_update` (ACP-V2-CFG-04).
   */
  openWith(options: readonly ConfigOption[]): void {
    this.configOptions = [...options];
    if (!this.encoderUsed) {
      this.encoder = this.host.codec.createUpdateEncoder({
        clientCapabilities: this.host.client.capabilities,
        configOptions: this.configOptions,
      });
    }
  }

  /**
   * What the author sends (`session.send`, `turn.send`). The runtime owns the v2 foreground state
   * (ACP-V2-LIFE-05/06): an author's `state_update` could end the turn early on the client, so it
   * is dropped (with one warning per session).
   */
  emitFromAuthor(update: SessionUpdate): void {
    // `?.`: a JavaScript author may send anything
    if (update?.sessionUpdate === 'state_update') {
      if (!this.warnedStateUpdate) {
        this.warnedStateUpdate = true;
        this.host.logger.warn(
          `session ${this.sessionId}: dropped a state_update sent by the agent: the runtime reports the foreground state itself (ACP-V2-LIFE-05/06); further ones are dropped silently`,
        );
      }
      return;
    }
    this.emit(update);
  }

  /** Persists (history kinds) then sends; nothing once the session is closed. */
  emit(update: AnySessionUpdate): void {
    if (this.closed) return;
    // the store failed: history can no longer be persisted, so it is not sent either (the turn is ending)
    if (this.storeFailure && isHistoryUpdate(update)) return;
    this.track(update);
    const modeChanged = this.trackConfig(update);
    if (isHistoryUpdate(update)) {
      this.stored(this.host.store.append(this.sessionId, update));
      this.appended++;
      // clients on other instances (a cluster's store) take user messages from live rows only: the
      // stored one of a prompt is echoed live by the lifecycle (v2), an author's is sent live here
      if (update.sessionUpdate === 'user_message') this.stored(this.host.store.appendLive?.(this.sessionId, update));
    } else this.storedLive(update);
    this.noteToolCall(update);
    this.encoderUsed = true;
    if (modeChanged && update.sessionUpdate === 'current_mode_update') {
      this.deliver(this.host.lifecycle.modeChange(update, this.configOptions));
      return;
    }
    this.deliver(update);
  }

  /** Records that `update` went out through this session's encoder by other means (a replay). */
  noteSent(update: AnySessionUpdate): void {
    this.noteToolCall(update);
    this.encoderUsed = true;
  }

  /** Sends an update that is not part of the history and not of any turn (v2 state snapshots). */
  sendLive(update: AnySessionUpdate): void {
    if (this.closed) return;
    // for clients on other instances (a cluster's store): held until persisted, like history
    this.storedLive(update);
    this.noteToolCall(update);
    this.encoderUsed = true;
    this.deliver(update);
  }

  /**
   * The author's `config_option_update` / `current_mode_update` change the session's options, so a
   * later `session/set_config_option` answers the current list (ACP-ALL-CFG-05) and a restore gets
   * the current values. Returns whether a `current_mode_update` was applied to the mode option.
   */
  private trackConfig(update: AnySessionUpdate): boolean {
    if (update.sessionUpdate === 'config_option_update' && Array.isArray(update.configOptions)) {
      this.configOptions = [...update.configOptions];
    } else if (update.sessionUpdate === 'current_mode_update' && typeof update.currentModeId === 'string') {
      const mode = modeOption(this.configOptions);
      if (!mode) return false;
      this.configOptions = withValue(this.configOptions, mode.configId, update.currentModeId);
    } else {
      return false;
    }
    this.stored(this.host.store.setConfigValues(this.sessionId, configValues(this.configOptions)));
    return update.sessionUpdate === 'current_mode_update';
  }

  /** Remembers what the client (and the encoder) were told about each tool call. */
  private noteToolCall(u: AnySessionUpdate): void {
    if (u.sessionUpdate === 'tool_call_update') {
      if (typeof u.toolCallId !== 'string') return;
      const toolCalls = (this.toolCalls ??= new Map<string, Record<string, unknown>>());
      const known = toolCalls.get(u.toolCallId) ?? {};
      for (const [k, v] of Object.entries(u)) if (k !== 'sessionUpdate' && v !== undefined) known[k] = v;
      toolCalls.set(u.toolCallId, known);
    } else if (u.sessionUpdate === 'tool_call_content_chunk') {
      if (typeof u.toolCallId !== 'string') return;
      const toolCalls = (this.toolCalls ??= new Map<string, Record<string, unknown>>());
      const known = toolCalls.get(u.toolCallId) ?? { toolCallId: u.toolCallId };
      // the content grew by a chunk: a subject's content list can no longer be compared
      delete known.content;
      toolCalls.set(u.toolCallId, known);
    }
  }

  /**
   * A permission question about a tool call the client (or the history) has not been told about,
   * or with fields it has not seen, first goes out as a `tool_call_update` through the session:
   * persisted, and known to the encoder, so v1 shows it as a `tool_call` with its own title/kind
   * and later updates continue it (ACP-V1-TOOL-01, ACP-V1-PERM-01, ACP-V2-PERM-02).
   */
  announcePermissionSubject(question: PermissionQuestion): void {
    const subject = question.subject;
    if (subject?.type !== 'tool_call') return;
    const call = subject.toolCall;
    // checked at run time too: a JavaScript author may pass anything
    if (!isObj(call) || typeof call.toolCallId !== 'string') return;
    const known = this.toolCalls?.get(call.toolCallId);
    const adds =
      !known || Object.entries(call).some(([k, v]) => k !== 'toolCallId' && v !== undefined && !sameValue(known[k], v));
    if (adds) this.emit({ ...call, sessionUpdate: 'tool_call_update' });
  }

  /** Feeds history through the encoder without sending, so later updates encode as continuations. */
  prime(update: AnySessionUpdate): void {
    this.noteToolCall(update);
    this.encoderUsed = true;
    try {
      this.encoder.encode(update);
    } catch {
      /* a stored update this codec rejects is simply not replayable */
    }
  }

  /** A v2 snapshot of the current foreground state (after a resume, ACP-V2-RESUME-08). */
  stateSnapshot(): StateUpdate {
    // a turn blocked on a permission question is `requires_action`, also in a resume snapshot
    return {
      sessionUpdate: 'state_update',
      state: this.active ? (this.active.requiresAction ? 'requires_action' : 'running') : 'idle',
    };
  }

  onCancelToolCall(toolCallId: string, cancel: () => void | Promise<void>): () => void {
    const cancels = (this.toolCancels ??= new Map<string, () => void | Promise<void>>());
    cancels.set(toolCallId, cancel);
    return () => {
      if (cancels.get(toolCallId) === cancel) cancels.delete(toolCallId);
    };
  }
  onCancelTerminal(terminalId: string, cancel: () => void | Promise<void>): () => void {
    const cancels = (this.terminalCancels ??= new Map<string, () => void | Promise<void>>());
    cancels.set(terminalId, cancel);
    return () => {
      if (cancels.get(terminalId) === cancel) cancels.delete(terminalId);
    };
  }

  /** Final tool calls and exited terminals can no longer be cancelled (ACP-V2-TOOL-11). */
  private track(u: AnySessionUpdate): void {
    if (u.sessionUpdate === 'tool_call_update' && FINAL_TOOL_STATUSES.has(u.status))
      this.toolCancels?.delete(u.toolCallId);
    if (u.sessionUpdate === 'terminal_update' && u.exitStatus != null) this.terminalCancels?.delete(u.terminalId);
  }

  async cancelEntity(kind: 'tool_call' | 'terminal', id: string): Promise<void> {
    const map = kind === 'tool_call' ? this.toolCancels : this.terminalCancels;
    const cancel = map?.get(id);
    if (!cancel) {
      const field = kind === 'tool_call' ? 'toolCallId' : 'terminalId';
      throw AcpError.invalidParams(
        `params.${field}: ${JSON.stringify(id)} is not a cancellable ${kind === 'tool_call' ? 'tool call' : 'terminal'} of this session (unknown, already final, or not cancellable)`,
        {
          path: `params.${field}`,
        },
      );
    }
    map?.delete(id);
    await cancel();
  }

  // ---- config ---------------------------------------------------------------

  async setConfigOption(configId: string, value: string | boolean): Promise<ConfigOption[]> {
    checkConfigValue(this.configOptions, configId, value);
    const def = this.host.definition;
    const next = def.setConfigOption
      ? await def.setConfigOption(this, configId, value)
      : withValue(this.configOptions, configId, value);
    this.configOptions = [...next];
    const written = this.host.store.setConfigValues(this.sessionId, configValues(this.configOptions));
    if (isPending(written)) {
      this.stored(written);
      // answered once persisted, like the updates
      await this.whenPersisted();
      if (this.storeFailure) throw this.storeFailure;
    }
    return this.configOptions;
  }

  /** v1 `session/set_mode` is the `category: "mode"` config option. */
  async setMode(modeId: string): Promise<void> {
    const m = modeOption(this.configOptions);
    if (!m) throw AcpError.invalidParams('params.modeId: this session has no modes', { path: 'params.modeId' });
    try {
      await this.setConfigOption(m.configId, modeId);
    } catch (e) {
      if (e instanceof AcpError && isObj(e.data) && e.data.path === 'params.value') {
        throw AcpError.invalidParams(`params.modeId: ${JSON.stringify(modeId)} is not an available mode`, {
          path: 'params.modeId',
        });
      }
      throw e;
    }
  }

  // ---- prompts --------------------------------------------------------------

  /**
   * v1: resolves with `{stopReason}` when the turn ends. A v1 prompt arriving while a turn runs is
   * **queued** and runs after it (documented choice: editors send "cancel, then the new prompt"
   * without waiting); `session/cancel`/`session/close` answer queued v1 prompts
   * `{stopReason:"cancelled"}` without running them, `$/cancel_request` answers -32800.
   * v2: resolves with `{messageId}` at insertion; a prompt arriving while a turn runs is held and
   * inserted in arrival order; cancelled held prompts get -32800 (ACP-V2-LIFE-13).
   */
  prompt(prompt: AnyContentBlock[], requestSignal: AbortSignal): Promise<PromptResponse> {
    if (this.closing || this.closed) return Promise.reject(AcpError.cancelled('the session is closing'));
    if (this.storeFailure) return Promise.reject(this.storeFailure);
    if (this.held.length >= this.host.maxHeldPrompts && this.active) {
      return Promise.reject(
        AcpError.invalidRequest(
          `session ${this.sessionId} already holds ${this.held.length} prompts waiting for the running turn (limit ${this.host.maxHeldPrompts})`,
        ),
      );
    }
    return new Promise<PromptResponse>((resolve, reject) => {
      const job: PromptJob = {
        prompt,
        resolve,
        reject,
        detach: () => requestSignal.removeEventListener('abort', onAbort),
      };
      // `$/cancel_request` for this prompt: a held prompt is withdrawn (-32800); a running v1 turn is cancelled
      const onAbort = (): void => {
        if (!job.turn) {
          const i = this.held.indexOf(job);
          if (i >= 0) {
            this.held.splice(i, 1);
            reject(AcpError.cancelled('the held prompt was withdrawn by $/cancel_request'));
          }
        } else {
          this.host.lifecycle.promptRequestCancelled(job);
        }
      };
      requestSignal.addEventListener('abort', onAbort, { once: true });
      if (this.active || this.held.length > 0) this.held.push(job);
      else this.start(job);
    });
  }

  private start(job: PromptJob): void {
    if (this.storeFailure) {
      job.detach();
      job.reject(this.storeFailure);
      this.startNext();
      return;
    }
    const userMessageId = this.newId('user');
    // the user message is history: persisted at insertion, so load/resume replays it with its id.
    // Live it is echoed in v2 only (ACP-V2-LIFE-04): in v1 `user_message_chunk` is history replay,
    // a v1 client renders its own prompt, and a live echo would show it twice.
    const userMessage: SessionUpdate = {
      sessionUpdate: 'user_message',
      messageId: userMessageId,
      content: [...job.prompt],
    };
    let written: void | Promise<void>;
    try {
      // stored before the turn becomes active: a prompt the store cannot take (e.g. nested too deep
      // to serialise) is refused and leaves no active turn behind that would wedge the session
      written = this.host.store.append(this.sessionId, userMessage);
      this.appended++;
    } catch (e) {
      job.detach();
      job.reject(
        e instanceof RangeError
          ? AcpError.invalidParams(`params.prompt: cannot be stored (${e.message}); nest content less deeply`, {
              path: 'params.prompt',
            })
          : AcpError.internal(`the prompt could not be stored: ${describeError(e)}`),
      );
      this.host.logger.warn(`session ${this.sessionId}: prompt refused, the store failed: ${describeError(e)}`);
      this.startNext();
      return;
    }
    this.track(userMessage);
    const turn = new TurnRuntime(this, job.prompt, userMessageId, {
      logger: this.host.logger,
      emit: (u) => this.emitFromAuthor(u),
      announceSubject: (q) => this.announcePermissionSubject(q),
      sendState: (state) => this.sendLive({ sessionUpdate: 'state_update', state }),
      askClient: (q, signal) => this.askClients(q, signal),
      elicitForm: (q, signal) => this.elicitations.form(q, signal),
      elicitUrl: (q, signal) => this.elicitations.url(q, signal),
      whenWritable: () => this.whenWritable(),
    });
    job.turn = turn;
    this.active = turn;
    if (!isPending(written) && this.quiescent) {
      this.host.lifecycle.inserted(job, userMessageId);
      this.activeDone = this.run(turn, job, userMessage);
      return;
    }
    // an asynchronous store: the prompt is acknowledged (v2) and its turn runs once the user message
    // is persisted; the turn is active meanwhile, so later prompts are held behind it
    this.stored(written);
    let begun!: (done: Promise<void>) => void;
    const done = new Promise<void>((resolve) => (begun = resolve));
    this.activeDone = done;
    this.afterPersisted((failure) => {
      if (!failure) {
        this.host.lifecycle.inserted(job, userMessageId);
        begun(this.run(turn, job, userMessage));
        return;
      }
      // not persisted: the prompt is refused with the store's reason, not run
      turn.finish();
      if (this.active === turn) this.active = undefined;
      if (this.activeDone === done) this.activeDone = undefined;
      job.detach();
      job.reject(failure);
      begun(Promise.resolve());
      this.startNext();
    });
  }

  /** Starts the next held prompt, if any. */
  private startNext(): void {
    const next = this.held.shift();
    if (next && !this.closed) this.start(next);
  }

  /**
   * Runs a turn and always ends it: whatever throws on the way (an echo that cannot be encoded, a
   * failing write) becomes an `error` end, and the session is free for the next prompt.
   */
  private async run(turn: TurnRuntime, job: PromptJob, userMessage: SessionUpdate): Promise<void> {
    let end: TurnEnd;
    try {
      end = await this.runTurn(turn, userMessage);
    } catch (error) {
      this.host.logger.error(`session ${this.sessionId}: prompt turn failed: ${describeError(error, true)}`);
      end = turn.cancelRequested ? { stopReason: 'cancelled' } : { stopReason: 'error', error: errorObject(error) };
    }
    // the store failed during the turn: it ends loudly with the store's reason, never as a success
    if (this.storeFailure) end = { stopReason: 'error', error: this.storeFailure.toJSON() };
    // nothing of this turn may follow its final message
    turn.finish();
    this.active = undefined;
    this.activeDone = undefined;
    // the end goes out after every update of the turn is persisted and sent
    this.afterPersisted((failure) => {
      const final =
        failure && end.stopReason !== 'error' ? { stopReason: 'error' as const, error: failure.toJSON() } : end;
      try {
        this.host.lifecycle.endTurn(this, job, final);
      } catch (e) {
        this.host.logger.error(`session ${this.sessionId}: could not report the end of a turn: ${describeError(e)}`);
      }
    });
    this.startNext();
  }

  private async runTurn(turn: TurnRuntime, userMessage: SessionUpdate): Promise<TurnEnd> {
    await this.host.lifecycle.beginTurn(this, userMessage);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const deadline = new Promise<{ kind: 'timeout' }>((resolve) => {
      onAbort = () => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), this.host.cancelTimeoutMs);
      };
      if (turn.signal.aborted) onAbort();
      else turn.signal.addEventListener('abort', onAbort, { once: true });
    });
    const author = (async () => this.host.definition.prompt(turn))();
    const settled = await Promise.race([
      author.then(
        (value) => ({ kind: 'ok' as const, value }),
        (error: unknown) => ({ kind: 'err' as const, error }),
      ),
      deadline,
    ]);
    if (timer) clearTimeout(timer);
    if (onAbort) turn.signal.removeEventListener('abort', onAbort);
    if (turn.cancelRequested) {
      // once aborted and flushed, the turn ends `cancelled`, never with an error (ACP-V1-CANCEL-05/06, ACP-V2-CANCEL-05/06)
      if (settled.kind === 'timeout') {
        this.host.logger.warn(
          `session ${this.sessionId}: prompt() did not return within ${this.host.cancelTimeoutMs} ms of the cancel; turn ended anyway`,
        );
        author.catch(() => undefined);
      } else if (settled.kind === 'err' && !isAbortError(settled.error)) {
        this.host.logger.warn(
          `session ${this.sessionId}: prompt() threw after the cancel: ${describeError(settled.error)}`,
        );
      }
      return { stopReason: 'cancelled' };
    }
    if (settled.kind === 'ok') return normalizeResult(settled.value);
    // (a timeout only starts once the turn is cancelled: handled above)
    if (settled.kind === 'timeout' || isAbortError(settled.error)) return { stopReason: 'cancelled' };
    const error = settled.error;
    this.host.logger.error(`session ${this.sessionId}: prompt turn failed: ${describeError(error, true)}`);
    return { stopReason: 'error', error: errorObject(error) };
  }

  /**
   * `session/cancel`: held prompts get -32800 (v2) / `cancelled` (v1), the running turn is aborted
   * (its permission requests are cancelled with `$/cancel_request`) and ends `cancelled`.
   */
  cancel(reason = 'session/cancel'): void {
    const held = this.held;
    this.held = [];
    for (const job of held) this.host.lifecycle.cancelHeld(job, reason);
    this.active?.cancel(`cancelled by ${reason}`);
  }

  /** Resolves once the running turn (if any) has ended and its final message was queued. */
  async settled(): Promise<void> {
    while (this.activeDone) await this.activeDone;
  }

  /**
   * Resolves once the running turn (if any) has ended and everything the session sent is persisted
   * and out, its end included (or the store failed): the end is held until the turn's writes
   * persist, then written and held again.
   */
  async flushed(): Promise<void> {
    await this.settled();
    // output is held only behind writes in flight (drain() sends it as they persist), and the end's
    // own write is issued while the earlier ones persist: wait until none is in flight
    while (!this.storeFailure && this.issued !== this.persisted) await this.whenPersisted();
  }

  /** `session/close` / connection end: cancel like `session/cancel`, wait for the turn, release. */
  async close(reason = 'session/close'): Promise<void> {
    if (this.closing) return this.settled();
    this.closing = true;
    this.cancel(reason);
    await this.settled();
    // an asynchronous store: what the turn persisted still goes out before the session closes
    await this.whenPersisted();
    this.closed = true;
    this.toolCancels?.clear();
    this.terminalCancels?.clear();
    this.elicitationState?.clear();
    // connections still attached (a shared session deleted by one of them) forget it
    for (const a of this.attachments.splice(0)) a.host.sessionEnded(this);
    try {
      await this.host.definition.closeSession?.(this);
    } catch (e) {
      this.host.logger.warn(`session ${this.sessionId}: closeSession failed: ${describeError(e)}`);
    }
  }
}

/** Same field value: identical, or equal JSON (subjects are often rebuilt, not reused). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function normalizeResult(r: TurnResult | undefined): TurnEnd {
  if (typeof r === 'string') return { stopReason: r };
  if (r && typeof r === 'object' && typeof r.stopReason === 'string') {
    const end: TurnEnd = r.error ? { stopReason: r.stopReason, error: r.error } : { stopReason: r.stopReason };
    if (r.usage) end.usage = r.usage;
    return end;
  }
  return { stopReason: 'end_turn' };
}

/** The JSON-RPC error object carried by an `error` stop: the cause, never an opaque message. */
function errorObject(e: unknown): ErrorObject {
  return AcpError.from(e).toJSON();
}

function describeError(e: unknown, stack = false): string {
  if (e instanceof Error) return stack && e.stack ? e.stack : `${e.name}: ${e.message}`;
  return String(e);
}

import {
  AcpError,
  ErrorCode,
  type AnyContentBlock,
  type AnySessionUpdate,
  type ErrorObject,
  type MessageRole,
  type StateUpdate,
  type StopReason,
  type SessionState,
} from '@acp-kit/protocol';
import { ConnectionClosedError, type CloseInfo } from '@acp-kit/protocol/rpc';
import { readLastTurnEnd } from '@acp-kit/protocol/internal';
import type { ClientSession, PromptOptions, PromptResult } from './client-session.js';
import { Emitter } from './events.js';
import type { ClientOptions, NewSessionOptions, ResumeSessionOptions } from './options.js';
import { connectRemote, type ClientConnection } from './connection.js';
import type { RemoteTarget } from './remote.js';

/** Bounds of the reconnect loop (exponential backoff: `baseDelayMs * 2^(attempt-1)`, capped at `maxDelayMs`). */
export interface ReconnectOptions {
  /** Connection attempts after a drop before giving up (default 6; `0` = never reconnect). */
  attempts?: number;
  /** Delay before the first attempt, in ms (default 250). */
  baseDelayMs?: number;
  /** Upper bound of one delay, in ms (default 8000). */
  maxDelayMs?: number;
}

/** Events of a {@link ReconnectingConnection}, in the order they happen. */
export interface ReconnectEvents {
  /** The connection dropped (not closed by the app); reconnecting starts. */
  disconnected: (info: CloseInfo) => void;
  /** Attempt `attempt` of `attempts` starts after `delayMs`; `error` is why the previous one failed. */
  reconnecting: (event: { attempt: number; attempts: number; delayMs: number; error?: Error }) => void;
  /** A new connection is initialized and every open session was resumed (or reported lost). */
  reconnected: (event: { attempt: number; connection: ClientConnection }) => void;
  /** A session could not be resumed on the new connection (e.g. the server forgot it); it is closed. */
  sessionLost: (event: { sessionId: string; error: Error }) => void;
  /** Reconnecting gave up after the bound: the connection is closed for good. */
  failed: (error: ReconnectFailedError) => void;
}

/** Reconnecting gave up: every attempt within {@link ReconnectOptions.attempts} failed. */
export class ReconnectFailedError extends AcpError {
  constructor(
    url: string,
    attempts: number,
    readonly lastError: Error | undefined,
  ) {
    super(
      ErrorCode.InternalError,
      `lost the connection to ${url} and could not reconnect in ${attempts} attempt${attempts === 1 ? '' : 's'}` +
        `${lastError ? ` (last error: ${lastError.message})` : ''}: check that the server is running and reachable, then connect again`,
      { url, attempts },
    );
    this.name = 'ReconnectFailedError';
  }
}

/** Options of {@link connectReconnecting}. */
export type ReconnectingClientOptions = ClientOptions & RemoteTarget & { reconnect?: ReconnectOptions };

/**
 * Connects to a remote agent like {@link connectRemote}, and keeps the sessions opened through
 * the returned object alive across dropped connections: the client reconnects with bounded
 * exponential backoff and resumes each open session with its history replayed (v2
 * `session/resume` + `replayFrom: {type: "start"}`, v1 `session/load`). See docs/remote.md.
 */
export async function connectReconnecting(options: ReconnectingClientOptions): Promise<ReconnectingConnection> {
  const { reconnect, ...connectOptions } = options;
  const first = await connectRemote(connectOptions);
  return new ReconnectingConnection(connectOptions, reconnect ?? {}, first);
}

/**
 * A remote connection that survives drops. Sessions are {@link ReconnectingSession}s: stable
 * objects whose underlying {@link ClientSession} is replaced at each resume.
 */
export class ReconnectingConnection {
  private current: ClientConnection;
  private readonly emitter = new Emitter<ReconnectEvents>();
  private readonly open = new Map<string, ReconnectingSession>();
  private closedLocally = false;
  private recovering: Promise<void> | undefined;
  private failure: ReconnectFailedError | undefined;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly wake = new Set<() => void>();

  /** @internal use {@link connectReconnecting} */
  constructor(
    private readonly connectOptions: ClientOptions & RemoteTarget,
    reconnect: ReconnectOptions,
    first: ClientConnection,
  ) {
    this.attempts = checkCount('reconnect.attempts', reconnect.attempts ?? 6);
    this.baseDelayMs = checkCount('reconnect.baseDelayMs', reconnect.baseDelayMs ?? 250);
    this.maxDelayMs = checkCount('reconnect.maxDelayMs', reconnect.maxDelayMs ?? 8000);
    this.current = first;
    this.watch(first);
  }

  /** The connection in use now (replaced at each reconnect). */
  get connection(): ClientConnection {
    return this.current;
  }

  /** Open sessions by id. */
  get sessions(): ReadonlyMap<string, ReconnectingSession> {
    return this.open;
  }

  /** Set once reconnecting gave up. */
  get failedError(): ReconnectFailedError | undefined {
    return this.failure;
  }

  /** Listens to the reconnect events; returns the unsubscribe function. */
  on<K extends keyof ReconnectEvents>(event: K, listener: ReconnectEvents[K]): () => void {
    return this.emitter.on(event, listener);
  }

  /** `session/new` on the current connection; the session is resumed after every reconnect. */
  async newSession(options: NewSessionOptions): Promise<ReconnectingSession> {
    const session = await (await this.usable()).newSession(options);
    return this.track(session, options);
  }

  /** `session/resume` (see {@link ClientConnection.resumeSession}); the session is resumed after every reconnect. */
  async resumeSession(sessionId: string, options: ResumeSessionOptions): Promise<ReconnectingSession> {
    const session = await (await this.usable()).resumeSession(sessionId, options);
    return this.track(session, options);
  }

  /** Closes the connection for good (no reconnect); waiting prompts reject. */
  async close(): Promise<void> {
    this.closedLocally = true;
    for (const w of [...this.wake]) w();
    for (const s of this.open.values()) s.end(new ConnectionClosedError({ reason: 'closed locally' }));
    this.open.clear();
    await this.current.close();
  }

  /** @internal the connection of a session that is recovering, once it is ready (rejects when reconnecting failed) */
  async usable(): Promise<ClientConnection> {
    while (this.recovering) await this.recovering;
    if (this.failure) throw this.failure;
    if (this.closedLocally) throw new ConnectionClosedError({ reason: 'closed locally' });
    return this.current;
  }

  /** @internal a session was closed by the app */
  forget(sessionId: string): void {
    this.open.delete(sessionId);
  }

  private track(session: ClientSession, options: NewSessionOptions): ReconnectingSession {
    const existing = this.open.get(session.sessionId);
    if (existing) {
      existing.replace(session, false);
      return existing;
    }
    // the set-up's own listener and abort signal are not the resumes' after a reconnect
    const { onUpdate: _setupOnly, signal: _setupSignal, ...kept } = options;
    const s = new ReconnectingSession(this, session, kept);
    this.open.set(session.sessionId, s);
    return s;
  }

  private watch(conn: ClientConnection): void {
    void conn.closed.then((info) => {
      if (this.closedLocally || conn !== this.current) return;
      this.emitter.emit('disconnected', info);
      const recovering: Promise<void> = this.recover().finally(() => {
        // a drop during the resumes starts another round: that one stays current
        if (this.recovering === recovering) this.recovering = undefined;
      });
      this.recovering = recovering;
    });
  }

  private async recover(): Promise<void> {
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      const delayMs = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
      this.emitter.emit('reconnecting', {
        attempt,
        attempts: this.attempts,
        delayMs,
        ...(lastError ? { error: lastError } : {}),
      });
      await this.sleep(delayMs);
      if (this.closedLocally) return;
      let conn: ClientConnection;
      try {
        conn = await connectRemote({ ...this.connectOptions, protocol: this.current.protocolVersion });
      } catch (e) {
        lastError = e instanceof Error ? e : new Error(String(e));
        continue;
      }
      if (this.closedLocally) {
        await conn.close();
        return;
      }
      this.current = conn;
      this.watch(conn);
      for (const s of [...this.open.values()]) {
        try {
          await s.resumeOn(conn);
        } catch (e) {
          if (conn.isClosed) break; // dropped again while resuming: the watcher starts over
          const error = e instanceof Error ? e : new Error(String(e));
          this.open.delete(s.sessionId);
          s.end(error);
          this.emitter.emit('sessionLost', { sessionId: s.sessionId, error });
        }
      }
      if (!conn.isClosed) this.emitter.emit('reconnected', { attempt, connection: conn });
      return;
    }
    this.failure = new ReconnectFailedError(this.connectOptions.url, this.attempts, lastError);
    for (const s of this.open.values()) s.end(this.failure);
    this.open.clear();
    this.emitter.emit('failed', this.failure);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake.add(done);
    });
  }
}

/** A listener of {@link ReconnectingSession.onUpdate}. */
export type ReconnectingUpdateListener = (update: AnySessionUpdate, state: SessionState) => void;

/**
 * One session of a {@link ReconnectingConnection}. `state` is the state of the current
 * underlying session; a resume builds the new state off to the side and swaps it in when the
 * agent answered, so the app never sees a half-replayed state. `onUpdate` listeners see every
 * update once: replayed updates are held back until the replayed state has caught up with what
 * the client held (the client-side equivalent of `replayFrom` = the last update it holds), and
 * only the rest (what happened while disconnected) is delivered.
 */
export class ReconnectingSession {
  private current: ClientSession;
  private readonly listeners = new Set<ReconnectingUpdateListener>();
  private unsubscribe: () => void;
  private ended: Error | undefined;
  /** The end of a turn the connection dropped in, as the resume snapshot named it (`_meta`, see {@link missedEnd}). */
  private resumedEnd: TurnEnd | undefined;
  /** prompts of this session waiting for their turn's end */
  private waiting = 0;

  /** @internal */
  constructor(
    private readonly owner: ReconnectingConnection,
    session: ClientSession,
    private readonly options: Omit<NewSessionOptions, 'onUpdate'>,
  ) {
    this.current = session;
    this.unsubscribe = this.forward(session);
  }

  get sessionId(): string {
    return this.current.sessionId;
  }
  /** The underlying session on the current connection. */
  get session(): ClientSession {
    return this.current;
  }
  /** The version-neutral state (of the current underlying session). */
  get state(): SessionState {
    return this.current.state;
  }
  /** True once closed by the app, lost, or reconnecting gave up. */
  get closed(): boolean {
    return this.ended !== undefined;
  }

  /** Every update, once, across reconnects (see the class comment). */
  onUpdate(listener: ReconnectingUpdateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * `prompt` on the current session. When the connection drops before the turn ended, the
   * prompt waits for the resume: it resolves with the turn's end as the resumed history shows
   * it (the idle `state_update`'s stop reason; a server that ends turns when their connection
   * closes, like `acp-kit serve`, reports `cancelled`), or with the next idle if the turn is
   * still running there. It rejects when reconnecting gave up or the session was lost.
   */
  async prompt(content: string | AnyContentBlock[], options: PromptOptions = {}): Promise<PromptResult> {
    const session = await this.ready();
    const asked = userMessageCount(session.state);
    this.waiting++;
    try {
      return await session.prompt(content, options);
    } catch (e) {
      if (!(e instanceof ConnectionClosedError) || this.ended) throw this.ended ?? e;
      const resumed = await this.ready();
      // the connection dropped before the agent took the prompt (its history has no new user
      // message): it was never run, so it is sent again instead of being reported as ended
      if (userMessageCount(resumed.state) <= asked) return this.prompt(content, options);
      const fg = resumed.state.foreground;
      if (fg.state === 'idle') {
        // the replayed history has no turn ends (they are live updates): the snapshot names the last one
        const end =
          fg.lastStopReason != null ? { stopReason: fg.lastStopReason, error: fg.lastError } : this.resumedEnd;
        return { stopReason: end?.stopReason ?? null, ...(end?.error ? { error: end.error } : {}) };
      }
      const idle = await resumed.nextIdle();
      return { stopReason: idle.stopReason ?? null, ...(idle.error ? { error: idle.error } : {}) };
    } finally {
      this.waiting--;
    }
  }

  /** `session/cancel` on the current session. */
  cancel(): void {
    this.current.cancel();
  }

  /** Closes the session (`session/close`); it is not resumed any more. */
  async close(): Promise<void> {
    this.owner.forget(this.sessionId);
    this.end(new AcpError(ErrorCode.InvalidRequest, `session ${this.sessionId} is closed`));
    await this.current.close();
  }

  /** @internal resumes this session on `conn`, replaying its history */
  async resumeOn(conn: ClientConnection): Promise<void> {
    const held = this.current.state;
    const heldKey = transcriptKey(held);
    const heldShape = shapeOf(held);
    // an empty history is caught up from the start
    let caughtUp = heldKey === EMPTY_TRANSCRIPT;
    const gone: { update: AnySessionUpdate; state: SessionState }[] = [];
    // what the client already shows of the session-wide state: a resume re-announces it (foreground
    // state snapshot, config options, ...), which is no news to listeners unless it changed meanwhile
    const shown = new Map<string, string>();
    for (const [kind, view] of SNAPSHOT_VIEWS) shown.set(kind, stableJson(view(held)));
    const news = (update: AnySessionUpdate, state: SessionState): boolean => {
      const view = SNAPSHOT_VIEWS.get(update.sessionUpdate);
      if (!view) return true;
      const now = stableJson(view(state));
      if (shown.get(update.sessionUpdate) === now) return false;
      shown.set(update.sessionUpdate, now);
      return true;
    };
    // a turn was running when the connection dropped (or a prompt of ours was sent and the history
    // has a new user message: the agent took it): its end, if it came meanwhile, is delivered once
    const running = held.foreground.state !== 'idle';
    const heldPrompts = userMessageCount(held);
    this.resumedEnd = undefined;
    const next = await conn.resumeSession(this.sessionId, {
      ...this.options,
      replay: true,
      onUpdate: (update, state) => {
        const busy = running || (this.waiting > 0 && userMessageCount(state) > heldPrompts);
        const ended = busy ? missedEnd(update) : undefined;
        if (ended?.stopReason != null)
          this.resumedEnd = { stopReason: ended.stopReason, error: ended.error ?? undefined };
        if (caughtUp) {
          // the end of a turn the client did not see is news even when its state looked idle
          if (ended || news(update, state)) gone.push({ update: ended ?? update, state });
        }
        // the cheap checks first: a whole comparison per replayed chunk would be quadratic
        else if (mayMatch(update, state, heldShape, held) && transcriptKey(state) === heldKey) caughtUp = true;
      },
    });
    this.replace(next, true);
    // what the client did not hold yet, delivered once the new state is in place
    for (const { update, state } of gone) this.emit(update, state);
  }

  /** @internal switches to `next` (a resume on a new connection, or the app resumed it again) */
  replace(next: ClientSession, fromReconnect: boolean): void {
    this.unsubscribe();
    if (!fromReconnect) this.current.markClosed();
    this.current = next;
    this.unsubscribe = this.forward(next);
  }

  /** @internal the session is over: prompts waiting for a resume reject with `error` */
  end(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    this.unsubscribe();
  }

  private async ready(): Promise<ClientSession> {
    if (this.ended) throw this.ended;
    await this.owner.usable().catch((e: unknown) => {
      throw this.ended ?? e;
    });
    if (this.ended) throw this.ended;
    return this.current;
  }

  private forward(session: ClientSession): () => void {
    return session.onUpdate((update, state) => this.emit(update, state));
  }

  private emit(update: AnySessionUpdate, state: SessionState): void {
    for (const l of [...this.listeners]) {
      try {
        l(update, state);
      } catch {
        /* a listener's failure is its own business */
      }
    }
  }
}

/** What the user sees of a session: its messages and tool calls (the parts a replay rebuilds). */
function transcriptKey(state: SessionState): string {
  return stableJson([state.messageList, [...state.toolCalls.values()]]);
}

/**
 * JSON with each object's keys in sorted order. A replay read from PostgreSQL (jsonb) has the keys
 * of every content block in the database's order (`{"text", "type"}`), the live updates the
 * client held have the agent's (`{"type", "text"}`): compared as written, the replayed state never
 * equalled the held one, so nothing after it (the rest of a turn cut by a restart, its end) was
 * delivered.
 */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

interface Shape {
  messages: number;
  toolCalls: number;
}

function shapeOf(state: SessionState): Shape {
  return { messages: state.messages.size, toolCalls: state.toolCalls.size };
}

const ROLE_OF: Partial<Record<AnySessionUpdate['sessionUpdate'], MessageRole>> = {
  user_message_chunk: 'user',
  user_message: 'user',
  agent_message_chunk: 'agent',
  agent_message: 'agent',
  agent_thought_chunk: 'thought',
  agent_thought: 'thought',
};

/** False when `state` cannot equal `held` yet (counts differ, or the message just updated is shorter/longer). */
function mayMatch(update: AnySessionUpdate, state: SessionState, shape: Shape, held: SessionState): boolean {
  if (state.messages.size !== shape.messages || state.toolCalls.size !== shape.toolCalls) return false;
  const role = ROLE_OF[update.sessionUpdate];
  const id = 'messageId' in update ? update.messageId : undefined;
  if (role === undefined || typeof id !== 'string') return true;
  return state.message(role, id)?.text.length === held.message(role, id)?.text.length;
}

/** The part of the state each session-wide update sets (an update that leaves it as it was shown is not delivered again). */
const SNAPSHOT_VIEWS = new Map<string, (s: SessionState) => unknown>([
  [
    'state_update',
    (s) => [
      s.foreground.state,
      s.foreground.lastStopReason ?? null,
      s.foreground.lastError ?? null,
      s.foreground.background ?? null,
    ],
  ],
  ['config_option_update', (s) => s.configOptions],
  ['available_commands_update', (s) => s.availableCommands],
  ['current_mode_update', (s) => s.modes?.currentModeId ?? null],
  ['usage_update', (s) => s.usage ?? null],
  ['session_info_update', (s) => s.info],
]);

const EMPTY_TRANSCRIPT = stableJson([[], []]);

/** How a turn ended: the stop reason and error of its idle `state_update`. */
interface TurnEnd {
  stopReason: StopReason;
  error?: ErrorObject;
}

/**
 * An idle resume snapshot without a stop reason that names the session's last turn end in its
 * `_meta` (acp-kit serve's cluster, {@link readLastTurnEnd}): that end, so a client whose
 * connection dropped before it arrived does not report the turn as ended with `null`.
 */
function missedEnd(update: AnySessionUpdate): StateUpdate | undefined {
  if (update.sessionUpdate !== 'state_update' || update.state !== 'idle' || update.stopReason != null) return undefined;
  const end = readLastTurnEnd(update._meta);
  return end ? { ...update, ...end } : undefined;
}

function checkCount(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 0 && value <= 2 ** 31 - 1))
    throw new TypeError(`${name} must be an integer from 0 to 2^31-1 (got ${String(value)})`);
  return value;
}

/** User messages in a session's history: one per prompt the agent took. */
function userMessageCount(state: SessionState): number {
  let n = 0;
  for (const m of state.messageList) if (m.role === 'user') n++;
  return n;
}

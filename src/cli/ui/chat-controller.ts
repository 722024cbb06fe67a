import type {
  ClientConnection,
  ClientSession,
  ElicitationContext,
  ElicitationDecision,
  PermissionContext,
  PromptResult,
  ReconnectingConnection,
  ReconnectingSession,
} from '@acp-kit/client';
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  PermissionRequest,
  SessionInfo,
  TerminalExitStatus,
  TimelineEntry,
  SessionState,
  AnySessionUpdate,
} from '@acp-kit/protocol';
import { isObj, readTurnTokenUsage, type TurnTokenUsage } from '@acp-kit/protocol/internal';
import { CliError, toCliError, type AgentContext } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { authStatusLine, describeStopReason, formatTokens } from '../render/symbols.js';
import type { ChatActions, ChatView, ClientTerminalView, Note } from './chat-model.js';
import { parseConfigCommand, runConfigCommand } from './chat-config.js';
import { parseCancelCommand, runCancelCommand } from './chat-cancel.js';
import { showValue } from './elicitation-form.js';

/** How much of a client terminal's output is kept for Ctrl-O (its end). */
const MAX_KEPT_OUTPUT = 1_000_000;

/**
 * What the controller uses of a session: a {@link ClientSession}, or (with `--agent-url`) a
 * {@link ReconnectingSession} seen through {@link chatSessionOf}, whose `state` is replaced by a
 * resume after a dropped connection.
 */
export type ChatSession = Pick<
  ClientSession,
  | 'sessionId'
  | 'protocolVersion'
  | 'state'
  | 'onUpdate'
  | 'prompt'
  | 'cancel'
  | 'clientTerminal'
  | 'setConfigOption'
  | 'setMode'
  | 'cancelToolCall'
  | 'cancelTerminal'
>;

/** A {@link ReconnectingSession} as the chat uses it (version and terminals of the underlying session in use now). */
export function chatSessionOf(s: ReconnectingSession): ChatSession {
  return {
    get sessionId() {
      return s.sessionId;
    },
    get protocolVersion() {
      return s.session.protocolVersion;
    },
    get state() {
      return s.state;
    },
    onUpdate: (listener) => s.onUpdate(listener),
    prompt: (content, options) => s.prompt(content, options),
    cancel: () => s.cancel(),
    clientTerminal: (terminalId) => s.session.clientTerminal(terminalId),
    setConfigOption: (configId, value) => s.session.setConfigOption(configId, value),
    setMode: (modeId) => s.session.setMode(modeId),
    cancelToolCall: (toolCallId) => s.session.cancelToolCall(toolCallId),
    cancelTerminal: (terminalId) => s.session.cancelTerminal(terminalId),
  };
}

/**
 * True when `b` (in a state rebuilt by a replay) is the same timeline entry as `a`. Messages
 * match by role only: v1 message ids are minted by the client per connection.
 */
function sameEntry(a: TimelineEntry, b: TimelineEntry): boolean {
  switch (a.kind) {
    case 'message':
      return b.kind === 'message' && b.role === a.role;
    case 'tool_call':
      return b.kind === 'tool_call' && b.toolCallId === a.toolCallId;
    case 'plan':
      return b.kind === 'plan' && b.planId === a.planId;
    case 'compaction':
      return b.kind === 'compaction' && b.compactionId === a.compactionId;
  }
}

/** How the chat ended. */
export interface ChatExit {
  code: number;
  error?: CliError;
}

/**
 * Drives the chat screen: owns the {@link ChatView}, turns the session's state changes into feed
 * items, runs prompts and cancels, and answers permission requests with the user's pick.
 * Protocol behaviour (cancel semantics, permission rules) stays in the library.
 */
export class ChatController implements ChatActions {
  readonly view: ChatView;
  private readonly listeners = new Set<() => void>();
  private readonly seen = new WeakSet<TimelineEntry>();
  private seenCount = 0;
  private nextId = 0;
  private abort: AbortController | undefined;
  private armTimer: NodeJS.Timeout | undefined;
  private readonly terminals = new Map<string, ClientTerminalView>();
  private readonly exitWaiters: Array<(e: ChatExit) => void> = [];
  private exited: ChatExit | undefined;
  private session!: ChatSession;
  /**
   * Prompts typed during a turn, held here and sent one by one when the turn ends (both versions).
   * The 2.4.0 schemas carry no steering or queueing capability (RFDs session-steering and
   * prompt-queueing are drafts): the steering RFD forbids sending a prompt while the session runs
   * unless the agent advertises `session.steering`, so the queue stays in the client, where Esc
   * can still take a message back.
   */
  private readonly queue: string[] = [];
  /** Notes from updates applied while the session opened, shown after its (replayed) history. */
  private openingNotes: Note[] = [];
  /** The running turn's token counts, once the agent reported them. */
  private tokensThisTurn: TurnTokenUsage | undefined;

  constructor(
    header: { agentLabel: string; protocolVersion: number; cwd: string; model?: string },
    private readonly ctx: AgentContext,
  ) {
    const self = this;
    this.view = {
      ...header,
      sessionId: '',
      state: undefined,
      picker: undefined,
      loading: 'starting…',
      feed: [],
      committed: 0,
      running: false,
      turnStartedAt: undefined,
      queued: [],
      draft: '',
      cancelling: false,
      exitArmed: false,
      permission: undefined,
      elicitation: undefined,
      decisions: new Map(),
      turnTokens: undefined,
      clientTerminal: (id) => self.clientTerminal(id),
    };
  }

  /** Shows the session picker; resolves with the pick (`undefined` = new session). */
  pickSession(sessions: SessionInfo[]): Promise<string | undefined> {
    return new Promise((resolve) => {
      this.view.picker = {
        sessions,
        pick: (id) => {
          this.view.picker = undefined;
          this.view.loading = id ? `resuming ${id}…` : 'starting a new session…';
          this.changed();
          resolve(id);
        },
      };
      this.changed();
    });
  }

  /**
   * The `onUpdate` to pass when opening the session (`newSession`/`resumeSession`): every update
   * applied before {@link attach} (e.g. a notice sent with the `session/new` answer) reaches the
   * view like later ones do.
   */
  opening = (update: AnySessionUpdate): void => {
    this.observe(update, true);
  };

  /** Binds the session (after new/resume); a replayed history becomes the first, final items. */
  attach(session: ChatSession): void {
    this.session = session;
    this.view.sessionId = session.sessionId;
    this.view.state = session.state;
    this.sync();
    for (const note of this.openingNotes.splice(0)) this.push({ note });
    this.view.committed = this.view.feed.length;
    session.onUpdate((u) => {
      this.observe(u, false);
      this.sync();
      this.changed();
    });
    this.changed();
  }

  /** What the feed and status show of an update beyond the timeline: notices, turn tokens. */
  private observe(u: AnySessionUpdate, opening: boolean): void {
    if (u.sessionUpdate === 'notice') {
      const n = u;
      const note: Note = {
        kind: n.severity === 'error' ? 'error' : 'info',
        text: `${n.severity}: ${n.title}${n.description ? ` — ${n.description}` : ''}`,
      };
      if (opening) this.openingNotes.push(note);
      else this.push({ note });
    } else if (u.sessionUpdate === 'session_info_update') {
      const tokens = readTurnTokenUsage(u._meta);
      if (!tokens) return;
      this.view.turnTokens = tokens;
      if (!opening && this.view.running) this.tokensThisTurn = tokens;
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the user (or a fatal error) ends the chat. */
  whenExited(): Promise<ChatExit> {
    if (this.exited) return Promise.resolve(this.exited);
    return new Promise((r) => this.exitWaiters.push(r));
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private push(item: { entry: TimelineEntry } | { note: Note }): void {
    this.view.feed.push({ id: this.nextId++, ...item });
  }

  /** The agent's auth state changes (unstable `auth/status_update`), each as a note in the feed. */
  followAuthStatus(conn: Pick<ClientConnection, 'on'>): void {
    conn.on('authStatus', (s) => this.note({ kind: 'info', text: authStatusLine(s) }));
  }

  note(note: Note): void {
    this.push({ note });
    this.changed();
  }

  /**
   * How a permission request was answered: shown in its tool call when the feed shows that tool
   * call (the agent announced it first), else as a note (the tool call, if any, comes after it).
   */
  decided(request: PermissionRequest, note: Note): void {
    const id = toolCallIdOf(request);
    const shown =
      id !== undefined &&
      this.view.feed.some((f) => 'entry' in f && f.entry.kind === 'tool_call' && f.entry.toolCallId === id);
    if (!shown) return this.note(note);
    this.view.decisions.set(id, note);
    this.changed();
  }

  /**
   * The connection dropped; `text` says what the client does about it (shown in the status line
   * until {@link reconnected} or the end).
   */
  disconnected(text: string): void {
    this.view.connection = text;
    this.changed();
  }

  /**
   * The connection is back and the session resumed: the feed goes on from the resumed state
   * (nothing the user saw is shown twice, what happened meanwhile is added) and `text` is noted once.
   */
  reconnected(text: string): void {
    this.view.connection = undefined;
    this.sync();
    this.push({ note: { kind: 'info', text } });
    this.changed();
  }

  /**
   * Shows the progress of `rc` after a drop in the status line; giving up, or the server not
   * resuming this chat's session, ends the chat with that error (`resumeLater`: the command line
   * that tries again). The reconnect line itself comes through {@link reconnected}.
   */
  followReconnects(rc: Pick<ReconnectingConnection, 'on'>, resumeLater: string): void {
    rc.on('disconnected', () => this.disconnected('connection lost · reconnecting…'));
    rc.on('reconnecting', ({ attempt, attempts }) =>
      this.disconnected(`connection lost · reconnecting (attempt ${attempt}/${attempts})…`),
    );
    rc.on('failed', (err) =>
      this.exit(
        ExitCode.AgentFailed,
        new CliError('agent_unreachable', ExitCode.AgentFailed, err.message, {
          // the session lives on in the server: say how to come back to it (docs/remote.md)
          hint: `Once the server is reachable, resume this chat with: ${resumeLater}`,
          cause: err,
        }),
      ),
    );
    rc.on('sessionLost', ({ sessionId, error }) => {
      if (sessionId !== this.view.sessionId) return;
      this.exit(
        ExitCode.AgentFailed,
        new CliError(
          'session_lost',
          ExitCode.AgentFailed,
          `the server could not resume session ${sessionId} after the connection dropped: ${error.message}`,
          {
            hint: `Start a new chat, or try again later with: ${resumeLater}`,
            cause: error,
          },
        ),
      );
    });
  }

  /** Appends timeline entries not yet in the feed. */
  private sync(): void {
    const held = this.view.state;
    if (!held) return;
    const state = this.session.state;
    if (state !== held) this.rebase(held, state);
    const tl = state.timeline;
    if (tl.length === this.seenCount) return;
    this.seenCount = tl.length;
    for (const e of tl) {
      if (this.seen.has(e)) continue;
      this.seen.add(e);
      // the live turn's prompt is already shown as a note; echoes (v2) and local copies (v1) are skipped
      if (e.kind === 'message' && e.role === 'user' && this.view.running) continue;
      this.push({ entry: e });
    }
  }

  /**
   * A resume replaced the session's state (a reconnect): its timeline is the replayed history,
   * which begins with what the feed already shows. Feed items move to their counterparts (so that
   * a message still streaming goes on growing in place) and those count as seen; entries past
   * the common part are new.
   */
  private rebase(held: SessionState, next: SessionState): void {
    const counterpart = new Map<TimelineEntry, TimelineEntry>();
    const n = Math.min(held.timeline.length, next.timeline.length);
    for (let i = 0; i < n; i++) {
      const a = held.timeline[i];
      const b = next.timeline[i];
      if (a === undefined || b === undefined || !sameEntry(a, b)) break;
      counterpart.set(a, b);
      if (this.seen.has(a)) this.seen.add(b);
    }
    for (const item of this.view.feed) {
      if (!('entry' in item)) continue;
      const b = counterpart.get(item.entry);
      if (b) item.entry = b;
    }
    this.view.state = next;
    this.seenCount = -1;
  }

  // ---- permission picker -------------------------------------------------------------------

  /** The `ask` function for the library's `interactive()` policy. */
  ask = (request: PermissionRequest, ctx: PermissionContext): Promise<string | 'cancelled'> =>
    new Promise((resolve) => {
      const done = (answer: string | 'cancelled'): void => {
        ctx.signal.removeEventListener('abort', onAbort);
        if (this.view.permission?.request === request) this.view.permission = undefined;
        this.changed();
        resolve(answer);
      };
      const onAbort = (): void => done('cancelled');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      this.view.permission = { request, answer: (optionId) => done(optionId) };
      this.changed();
    });

  // ---- elicitations -----------------------------------------------------------------------

  /** Questions wait for the one on screen to be answered (one form at a time). */
  private elicitations: Promise<unknown> = Promise.resolve();

  /**
   * The chat's elicitation handler (both modes): the question is shown (form or URL), the user's
   * answer is noted in the feed; a withdrawn request (`$/cancel_request`, a cancelled turn) closes
   * it as `cancel`. A URL the user consents to is printed, never opened or fetched (ACP-ALL-ELIC-11).
   */
  elicit = (request: CreateElicitationRequest, ctx: ElicitationContext): Promise<ElicitationDecision> => {
    const next = this.elicitations.then(() => this.showElicitation(request, ctx));
    this.elicitations = next.catch(() => undefined);
    return next;
  };

  private showElicitation(request: CreateElicitationRequest, ctx: ElicitationContext): Promise<ElicitationDecision> {
    return new Promise((resolve) => {
      const done = (response: CreateElicitationResponse): void => {
        ctx.signal.removeEventListener('abort', onAbort);
        if (this.view.elicitation?.request === request) this.view.elicitation = undefined;
        this.push({ note: { kind: 'permission', text: describeElicitationAnswer(request, response) } });
        this.changed();
        resolve({ response });
      };
      const onAbort = (): void => done({ action: 'cancel' });
      if (ctx.signal.aborted) return onAbort();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      this.view.elicitation = { request, agentLabel: this.view.agentLabel, answer: done };
      this.changed();
    });
  }

  // ---- v1 client terminals -----------------------------------------------------------------

  onTerminalOutput = (terminalId: string, text: string): void => {
    let t = this.terminals.get(terminalId);
    if (!t) {
      const info = this.session?.clientTerminal(terminalId);
      t = { command: info ? [info.command, ...info.args].join(' ') : '', output: '' };
      this.terminals.set(terminalId, t);
    }
    // bounded: Ctrl-O shows the whole output, up to this much of its end
    t.output = (t.output + text).slice(-MAX_KEPT_OUTPUT);
    this.changed();
  };

  onTerminalExit = (terminalId: string, status: TerminalExitStatus): void => {
    const t = this.terminals.get(terminalId) ?? { command: '', output: '' };
    t.exitCode = status.exitCode ?? null;
    t.signal = status.signal ?? null;
    this.terminals.set(terminalId, t);
    this.changed();
  };

  private clientTerminal(id: string): ClientTerminalView | undefined {
    return this.terminals.get(id);
  }

  // ---- actions -----------------------------------------------------------------------------

  send(text: string): void {
    if (this.exited) return;
    if (text === '/exit' || text === '/quit') {
      if (!this.view.state?.availableCommands.some((c) => `/${c.name}` === text)) return this.exit(ExitCode.Ok);
    }
    this.view.exitArmed = false;
    // settings apply at once, also during a turn (set_config_option is not part of a turn)
    const cfg = parseConfigCommand(text);
    if (cfg) return void this.configure(text, cfg);
    // cancelling one tool call or terminal belongs to the running turn: at once, never queued
    const cancel = parseCancelCommand(text);
    if (cancel) return void this.cancelOne(text, cancel);
    if (this.view.running) return this.enqueue(text);
    // slash commands go to the agent as prompt text (ACP-ALL-CMD-03)
    this.startTurn(text);
  }

  /** `/mode`, `/model`, `/config`: the command and its answer (a listing, what was set, or the error) in the feed. */
  private async configure(text: string, cmd: NonNullable<ReturnType<typeof parseConfigCommand>>): Promise<void> {
    this.push({ note: { kind: 'prompt', text } });
    this.changed();
    this.note(await runConfigCommand(this.session, cmd));
  }

  /** `/cancel-tool`, `/cancel-terminal`: the command and what was asked of the agent (or why not) in the feed. */
  private async cancelOne(text: string, cmd: NonNullable<ReturnType<typeof parseCancelCommand>>): Promise<void> {
    this.push({ note: { kind: 'prompt', text } });
    this.changed();
    this.note(await runCancelCommand(this.session, cmd));
  }

  private enqueue(text: string): void {
    this.queue.push(text);
    this.view.queued = [...this.queue];
    this.changed();
  }

  /** Esc while messages are queued: takes the latest one back (it was never sent). */
  unqueue(): void {
    const text = this.queue.pop();
    if (text === undefined) return;
    this.view.queued = [...this.queue];
    this.push({ note: { kind: 'info', text: `removed queued message: ${text}` } });
    this.changed();
  }

  private startTurn(text: string): void {
    this.push({ note: { kind: 'prompt', text } });
    this.view.running = true;
    this.view.cancelling = false;
    this.view.turnStartedAt = Date.now();
    this.tokensThisTurn = undefined;
    const abort = (this.abort = new AbortController());
    this.changed();
    const result: Promise<PromptResult> = this.session.prompt(text, { signal: abort.signal });
    result.then(
      (r) => {
        const ok = r.stopReason === 'end_turn';
        const tokens = this.tokensThisTurn ? ` · ${formatTokens(this.tokensThisTurn)}` : '';
        this.finishTurn({
          kind: 'stop',
          ok,
          text: `${describeStopReason(r.stopReason)}${r.error ? `: ${r.error.message}` : ''}${tokens}`,
        });
      },
      (e: unknown) => {
        const err = toCliError(e, this.ctx);
        this.finishTurn({ kind: 'error', text: `${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}` });
        // a dead connection ends the chat
        if (err.exitCode === ExitCode.AgentFailed) this.exit(err.exitCode, err);
      },
    );
  }

  private finishTurn(note: Note): void {
    this.sync();
    this.view.running = false;
    this.view.cancelling = false;
    this.view.turnStartedAt = undefined;
    this.view.permission = undefined;
    this.view.elicitation = undefined;
    this.abort = undefined;
    this.push({ note });
    this.view.committed = this.view.feed.length;
    const next = this.exited ? undefined : this.queue.shift();
    this.view.queued = [...this.queue];
    if (next !== undefined) return this.startTurn(next);
    this.changed();
  }

  setDraft(text: string): void {
    this.view.draft = text;
    this.changed();
  }

  rejectPermission(): void {
    const p = this.view.permission;
    if (!p) return;
    const options = p.request.options;
    const reject = options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind === 'reject_always');
    // no reject option offered: nothing to pick (the turn can still be cancelled with Ctrl-C)
    if (reject) p.answer(reject.optionId);
  }

  expandOutput(): void {
    const found = this.latestOutput();
    if (!found) {
      this.note({ kind: 'info', text: 'no command output to show' });
      return;
    }
    this.push({ note: { kind: 'output', title: found.title, text: found.output } });
    // a finished turn's items are final; keep it that way for the expanded output
    if (!this.view.running) this.view.committed = this.view.feed.length;
    this.changed();
  }

  /** The whole output of the latest tool call that has output (terminal or text content). */
  private latestOutput(): { title: string; output: string } | undefined {
    const state = this.view.state;
    if (!state) return undefined;
    for (const e of [...state.timeline].reverse()) {
      if (e.kind !== 'tool_call') continue;
      for (const item of [...e.content].reverse()) {
        if (item.type === 'terminal' && item.terminalId) {
          const t = state.terminals.get(item.terminalId);
          if (t) return { title: t.command ?? e.title ?? e.toolCallId, output: t.outputText };
          const c = this.clientTerminal(item.terminalId);
          if (c) return { title: c.command || (e.title ?? e.toolCallId), output: c.output };
        } else if (item.type === 'content' && item.content.type === 'text' && typeof item.content.text === 'string') {
          return { title: e.title ?? e.toolCallId, output: item.content.text };
        }
      }
    }
    return undefined;
  }

  /**
   * Ctrl-C: clears the input line; cancels the running turn (queued prompts, never sent, are
   * dropped), a second Ctrl-C (or two while idle) exits.
   */
  interrupt(): void {
    this.view.draft = '';
    if (this.view.running && !this.view.cancelling) {
      this.view.cancelling = true;
      for (const q of this.queue.splice(0)) this.push({ note: { kind: 'info', text: `dropped queued prompt: ${q}` } });
      this.view.queued = [];
      this.changed();
      this.abort?.abort();
      return;
    }
    if (this.view.running || this.view.exitArmed) return this.exit(ExitCode.Interrupted);
    this.view.exitArmed = true;
    clearTimeout(this.armTimer);
    this.armTimer = setTimeout(() => {
      this.view.exitArmed = false;
      this.changed();
    }, 3000);
    this.armTimer.unref();
    this.changed();
  }

  exit(code: number = ExitCode.Ok, error?: CliError): void {
    if (this.exited) return;
    clearTimeout(this.armTimer);
    this.exited = { code, ...(error ? { error } : {}) };
    this.abort?.abort();
    for (const w of this.exitWaiters.splice(0)) w(this.exited);
  }
}

/** The feed's line for an answered question. */
function describeElicitationAnswer(request: CreateElicitationRequest, response: CreateElicitationResponse): string {
  const what = request.mode === 'url' ? `open ${request.url}` : request.message;
  switch (response.action) {
    case 'accept': {
      if (request.mode === 'url') return `✓ ${request.message}: open this URL yourself: ${request.url}`;
      const content = response.content ?? {};
      const answers = Object.entries(content).map(([k, v]) => `${k}=${showValue(v)}`);
      return `✓ ${what} → ${answers.length ? answers.join(', ') : '(no answers)'}`;
    }
    case 'decline':
      return `✗ declined: ${what}`;
    default:
      return `✗ cancelled: ${what}`;
  }
}

/** The tool call a permission request is about, if it names one. */
function toolCallIdOf(request: PermissionRequest): string | undefined {
  const subject = request.subject;
  if (!subject) return undefined;
  const call: unknown = subject.type === 'tool_call' ? subject.toolCall : undefined;
  const id = isObj(call) ? call.toolCallId : subject.type === 'command' ? subject.toolCallId : undefined;
  return typeof id === 'string' ? id : undefined;
}

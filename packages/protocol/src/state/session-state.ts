import type { Meta } from '../model/json.js';
import type { AvailableCommand, ConfigOption, SessionModeState } from '../model/session.js';
import type { ForegroundState, StopReason } from '../model/stop-reason.js';
import type { ToolCallPatch } from '../model/tool-call.js';
import type {
  AnySessionUpdate,
  BackgroundWork,
  CompactionUpdate,
  ErrorObject,
  MessageChunk,
  MessageRole,
  MessageUpdate,
  Notice,
  StateUpdate,
  TerminalUpdate,
  UnknownUpdate,
  UsageInfo,
} from '../model/update.js';
import {
  CompactionState,
  MessageState,
  PlanState,
  TerminalState,
  ToolCallState,
  decodeBase64,
  type TimelineEntry,
} from './entities.js';
import { patchField, patchMeta } from './meta-patch.js';
import { SessionMessageState, SubagentState } from './subagents.js';

export type { UsageInfo } from '../model/update.js';

/** Aggregate foreground activity (v2 `state_update`; synthesized from the prompt request in v1). */
export interface ForegroundInfo {
  /** `idle`, `running`, `requires_action`, or an unknown state (never treated as idle, ACP-V2-STOP-02). */
  state: ForegroundState;
  /** The stop reason of the last idle update that carried one (a repeated snapshot is no new completion, ACP-V2-LIFE-15). */
  lastStopReason: StopReason | undefined;
  /** The `error` object that came with the last `error` stop. */
  lastError: ErrorObject | undefined;
  /** Latest reported `background` snapshot; `undefined` = never reported (ACP-V2-BG-01). */
  background: BackgroundWork[] | undefined;
}

/** Session metadata from `session_info_update` (ACP-ALL-INFO-01). */
export interface SessionInfoState {
  title: string | undefined;
  updatedAt: string | undefined;
  meta: Meta | undefined;
}

/** Called after each applied update, with the update as applied and the state. */
export type StateChangeListener = (update: AnySessionUpdate, state: SessionState) => void;

const ROLE_OF: Readonly<Record<MessageUpdate['sessionUpdate'] | MessageChunk['sessionUpdate'], MessageRole>> = {
  user_message: 'user',
  agent_message: 'agent',
  agent_thought: 'thought',
  user_message_chunk: 'user',
  agent_message_chunk: 'agent',
  agent_thought_chunk: 'thought',
};

/**
 * The version-neutral view of one session: applies neutral `session/update`s (decoded from
 * v1 or v2) with the spec's algebra. Every update is applied synchronously and in call order,
 * so feeding it in arrival order satisfies ACP-V2-MSG-02 / ACP-V2-TOOL-04.
 *
 * Lives in the protocol layer so clients, proxies and inspectors share one implementation.
 */
export class SessionState {
  /** Ordered entries (messages, tool calls, plans, compactions) for UIs. */
  readonly timeline: TimelineEntry[] = [];
  readonly messages = new Map<string, MessageState>();
  readonly toolCalls = new Map<string, ToolCallState>();
  readonly plans = new Map<string, PlanState>();
  readonly terminals = new Map<string, TerminalState>();
  readonly compactions = new Map<string, CompactionState>();
  /** Live advisory notices in arrival order (never history). */
  readonly notices: Notice[] = [];
  /** Child sessions this session announced with `subagent_update` (unstable), by session id. */
  readonly subagents = new Map<string, SubagentState<SessionState>>();
  /** Inter-session messages (`session_message` / `_chunk`, unstable), by message id. */
  readonly sessionMessages = new Map<string, SessionMessageState>();
  /** Update kinds this version does not know, kept raw (ACP-V2-EXT-03). */
  readonly unknownUpdates: UnknownUpdate[] = [];
  /** New sessions start idle (ACP-V2-SESS-05). */
  readonly foreground: ForegroundInfo = {
    state: 'idle',
    lastStopReason: undefined,
    lastError: undefined,
    background: undefined,
  };
  usage: UsageInfo | undefined;
  /** Complete config option list (ACP-ALL-CFG-06); modes are the `category: "mode"` option. */
  configOptions: ConfigOption[] = [];
  /** v1 legacy modes, when the agent returned them. */
  modes: SessionModeState | undefined;
  availableCommands: AvailableCommand[] = [];
  readonly info: SessionInfoState = { title: undefined, updatedAt: undefined, meta: undefined };
  private readonly listeners = new Set<StateChangeListener>();

  constructor(readonly sessionId = '') {}

  /** Subscribes to applied updates; returns the unsubscribe function. */
  onChange(listener: StateChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The message with this role and id, if any. */
  message(role: MessageRole, messageId: string): MessageState | undefined {
    return this.messages.get(key(role, messageId));
  }

  /** Messages in timeline order. */
  get messageList(): MessageState[] {
    return this.timeline.filter((e): e is MessageState => e.kind === 'message');
  }

  /** True unless the foreground state is exactly `idle`. */
  get busy(): boolean {
    return this.foreground.state !== 'idle';
  }

  /** Applies one neutral update, then notifies listeners. */
  apply(update: AnySessionUpdate): void {
    this.reduce(update);
    for (const l of this.listeners) l(update, this);
  }

  /**
   * Applies an update of the child session `childId` (announced with `subagent_update`, unstable)
   * to that child's own state, then notifies this session's listeners with the child's state, so
   * a UI subscribed to the parent sees its subagents' work (`state.sessionId` tells which).
   * A grandchild is routed by the child that announced it. Returns false for an unannounced id.
   */
  applyChild(childId: string, update: AnySessionUpdate): boolean {
    const child = this.findChild(childId);
    if (!child) return false;
    child.apply(update);
    for (const l of this.listeners) l(update, child);
    return true;
  }

  /** The state of a child (or deeper descendant) session announced in this session, if any. */
  findChild(childId: string): SessionState | undefined {
    const direct = this.subagents.get(childId);
    if (direct) return direct.session;
    for (const s of this.subagents.values()) {
      const found = s.session.findChild(childId);
      if (found) return found;
    }
    return undefined;
  }

  /** Applies several updates in order. */
  applyAll(updates: Iterable<AnySessionUpdate>): void {
    for (const u of updates) this.apply(u);
  }

  /**
   * Setup results (`session/new`/`load`/`resume` responses) and `set_config_option` answers.
   * These never overwrite a foreground state already reported (ACP-V2-SESS-05).
   */
  applySetup(setup: {
    configOptions?: ConfigOption[] | null;
    modes?: SessionModeState | null;
    availableCommands?: AvailableCommand[] | null;
  }): void {
    if (Array.isArray(setup.configOptions))
      this.apply({ sessionUpdate: 'config_option_update', configOptions: setup.configOptions });
    if (setup.modes) {
      this.modes = { currentModeId: setup.modes.currentModeId, availableModes: [...setup.modes.availableModes] };
    }
    if (Array.isArray(setup.availableCommands))
      this.apply({ sessionUpdate: 'available_commands_update', availableCommands: setup.availableCommands });
  }

  /**
   * Marks every unfinished tool call cancelled locally (ACP-V1-CANCEL-02, ACP-V2-CANCEL-02),
   * except work in the latest `background` snapshot, which a cancel spares (ACP-V2-CANCEL-01).
   * Later updates from the agent still apply (ACP-V1-CANCEL-08).
   */
  markUnfinishedToolCallsCancelled(): string[] {
    const spared = new Set<string>();
    for (const w of this.foreground.background ?? []) {
      if (w.type === 'tool_call' && typeof w.toolCallId === 'string') spared.add(w.toolCallId);
    }
    const ids: string[] = [];
    for (const tc of this.toolCalls.values()) {
      if (!tc.finished && !spared.has(tc.toolCallId)) ids.push(tc.toolCallId);
    }
    for (const id of ids) this.apply({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'cancelled' });
    return ids;
  }

  /** A JSON snapshot of everything (for inspectors, tests and persistence). */
  toJSON(): object {
    return {
      sessionId: this.sessionId,
      foreground: this.foreground,
      timeline: this.timeline.map((e) => e.toJSON()),
      terminals: [...this.terminals.values()].map((t) => t.toJSON()),
      usage: this.usage,
      configOptions: this.configOptions,
      modes: this.modes,
      availableCommands: this.availableCommands,
      info: this.info,
      notices: this.notices,
      subagents: [...this.subagents.values()].map((s) => s.toJSON()),
      sessionMessages: [...this.sessionMessages.values()].map((m) => m.toJSON()),
      unknownUpdates: this.unknownUpdates,
    };
  }

  // ---- reducer ---------------------------------------------------------------

  private reduce(u: AnySessionUpdate): void {
    switch (u.sessionUpdate) {
      case 'user_message':
      case 'agent_message':
      case 'agent_thought':
        return this.messageUpdate(u);
      case 'user_message_chunk':
      case 'agent_message_chunk':
      case 'agent_thought_chunk':
        return this.messageChunk(u);
      case 'tool_call_update':
        return this.toolCallUpdate(u);
      case 'tool_call_content_chunk': {
        this.toolCall(u.toolCallId).content.push(u.content);
        return;
      }
      case 'state_update':
        return this.stateUpdate(u);
      case 'plan_update': {
        const plan = u.plan;
        const existing = this.plans.get(plan.planId);
        if (existing) existing.plan = plan;
        else {
          const p = new PlanState(plan.planId, plan);
          this.plans.set(plan.planId, p);
          this.timeline.push(p);
        }
        return;
      }
      case 'plan_removed': {
        const id = u.planId;
        const p = this.plans.get(id);
        if (p) {
          this.plans.delete(id);
          const i = this.timeline.indexOf(p);
          if (i >= 0) this.timeline.splice(i, 1);
        }
        return;
      }
      case 'available_commands_update':
        this.availableCommands = [...u.availableCommands];
        return;
      case 'config_option_update':
        this.configOptions = [...u.configOptions];
        this.syncModesFromConfig();
        return;
      case 'current_mode_update':
        return this.currentMode(u.currentModeId);
      case 'session_info_update': {
        this.info.title = patchField(this.info.title, u.title, undefined);
        this.info.updatedAt = patchField(this.info.updatedAt, u.updatedAt, undefined);
        this.info.meta = patchMeta(this.info.meta, u._meta);
        return;
      }
      case 'usage_update': {
        this.usage = { used: u.used, size: u.size, cost: patchField(this.usage?.cost, u.cost, undefined) };
        return;
      }
      case 'terminal_update':
        return this.terminalUpdate(u);
      case 'terminal_output_chunk': {
        this.terminal(u.terminalId).appendOutput(decodeBase64(u.data));
        return;
      }
      case 'notice':
        this.notices.push(u);
        return;
      case 'compaction_update':
        return this.compactionUpdate(u);
      case 'compaction_summary_chunk': {
        this.compaction(u.compactionId).summary.push(u.content);
        return;
      }
      case 'subagent_update':
        return this.ensureSubagent(u.sessionId).apply(u);
      case 'session_message':
        return this.sessionMessage(u.messageId).upsert(u);
      case 'session_message_chunk':
        return this.sessionMessage(u.messageId).append(u);
      default:
        this.unknownUpdates.push(u);
    }
  }

  /**
   * The child with this id announced in this session (`subagent_update`), `undefined` when none
   * was: reading never creates one (a UI asking about an id must not add a child to the state).
   */
  subagent(sessionId: string): SubagentState<SessionState> | undefined {
    return this.subagents.get(sessionId);
  }

  /** The child with this id, created (with an empty session state of its own) when first announced. */
  private ensureSubagent(sessionId: string): SubagentState<SessionState> {
    let s = this.subagents.get(sessionId);
    if (!s) {
      s = new SubagentState(sessionId, new SessionState(sessionId));
      this.subagents.set(sessionId, s);
    }
    return s;
  }

  private sessionMessage(messageId: string): SessionMessageState {
    let m = this.sessionMessages.get(messageId);
    if (!m) {
      m = new SessionMessageState(messageId);
      this.sessionMessages.set(messageId, m);
    }
    return m;
  }

  private messageEntry(role: MessageRole, messageId: string): MessageState {
    const k = key(role, messageId);
    let m = this.messages.get(k);
    if (!m) {
      m = new MessageState(role, messageId);
      this.messages.set(k, m);
      this.timeline.push(m);
    }
    return m;
  }

  private messageUpdate(u: MessageUpdate): void {
    const m = this.messageEntry(ROLE_OF[u.sessionUpdate], u.messageId);
    // omitted keeps, null and [] clear, an array replaces (ACP-V2-MSG-03/04)
    if (u.content !== undefined) m.replaceContent(u.content);
    m.meta = patchMeta(m.meta, u._meta);
  }

  private messageChunk(u: MessageChunk): void {
    // chunk `_meta` is chunk-scoped and not stored on the message (ACP-V2-MSG-06)
    this.messageEntry(ROLE_OF[u.sessionUpdate], u.messageId).appendBlock(u.content);
  }

  private toolCall(id: string): ToolCallState {
    let tc = this.toolCalls.get(id);
    if (!tc) {
      // unseen id creates with defaults: pending, other, no title (ACP-V2-TOOL-03)
      tc = new ToolCallState(id);
      this.toolCalls.set(id, tc);
      this.timeline.push(tc);
    }
    return tc;
  }

  private toolCallUpdate(u: ToolCallPatch): void {
    const tc = this.toolCall(u.toolCallId);
    tc.title = patchField(tc.title, u.title, undefined);
    tc.name = patchField(tc.name, u.name, undefined);
    tc.toolKind = patchField(tc.toolKind, u.kind, 'other');
    tc.status = patchField(tc.status, u.status, 'pending');
    // arrays replace wholesale; [] and null clear (ACP-V2-TOOL-03)
    if (u.content !== undefined) tc.content = u.content ? [...u.content] : [];
    if (u.locations !== undefined) tc.locations = u.locations ? [...u.locations] : [];
    if (u.rawInput !== undefined) tc.rawInput = u.rawInput === null ? undefined : u.rawInput;
    if (u.rawOutput !== undefined) tc.rawOutput = u.rawOutput === null ? undefined : u.rawOutput;
    tc.capabilities = patchField(tc.capabilities, u.capabilities, undefined);
    tc.meta = patchMeta(tc.meta, u._meta);
  }

  private stateUpdate(u: StateUpdate): void {
    const f = this.foreground;
    f.state = u.state;
    // a snapshot that reports no stop reason keeps the last one (ACP-V2-LIFE-15)
    if (u.state === 'idle' && u.stopReason != null) {
      f.lastStopReason = u.stopReason;
      f.lastError = u.error ?? undefined;
    }
    // omitted/null background = not reported, keep the last snapshot (ACP-V2-BG-01)
    if (Array.isArray(u.background)) f.background = [...u.background];
  }

  private currentMode(modeId: string): void {
    if (this.modes) this.modes = { ...this.modes, currentModeId: modeId };
    let changed = false;
    const next = this.configOptions.map((o) => {
      if (o.type === 'select' && o.category === 'mode') {
        changed = true;
        return { ...o, currentValue: modeId };
      }
      return o;
    });
    if (changed) this.configOptions = next;
  }

  /**
   * v1 legacy `modes` and the `category: "mode"` option are one setting kept in sync by the
   * agent (ACP-V1-CFG-04): a config change of the mode option moves `modes.currentModeId` too.
   */
  private syncModesFromConfig(): void {
    if (!this.modes) return;
    const opt = this.configOptions.find((o) => o.type === 'select' && o.category === 'mode');
    const value = opt?.currentValue;
    if (
      typeof value === 'string' &&
      value !== this.modes.currentModeId &&
      this.modes.availableModes.some((m) => m.id === value)
    ) {
      this.modes = { ...this.modes, currentModeId: value };
    }
  }

  private terminal(id: string): TerminalState {
    let t = this.terminals.get(id);
    if (!t) {
      // first sighting may be a content reference, an update or a chunk (ACP-V2-TERM-03)
      t = new TerminalState(id);
      this.terminals.set(id, t);
    }
    return t;
  }

  private terminalUpdate(u: TerminalUpdate): void {
    const t = this.terminal(u.terminalId);
    t.command = patchField(t.command, u.command, undefined);
    t.cwd = patchField(t.cwd, u.cwd, undefined);
    if (u.output !== undefined) t.replaceOutput(u.output ? decodeBase64(u.output.data) : new Uint8Array(0));
    t.exitStatus = patchField(t.exitStatus, u.exitStatus, undefined);
    t.size = patchField(t.size, u.size, undefined);
    t.capabilities = patchField(t.capabilities, u.capabilities, undefined);
    t.meta = patchMeta(t.meta, u._meta);
  }

  private compaction(id: string): CompactionState {
    let c = this.compactions.get(id);
    if (!c) {
      c = new CompactionState(id);
      this.compactions.set(id, c);
      this.timeline.push(c);
    }
    return c;
  }

  private compactionUpdate(u: CompactionUpdate): void {
    const c = this.compaction(u.compactionId);
    c.status = u.status;
    if (u.summary !== undefined) c.summary = u.summary ? [...u.summary] : [];
    c.error = patchField(c.error, u.error, undefined);
    c.meta = patchMeta(c.meta, u._meta);
  }
}

function key(role: MessageRole, messageId: string): string {
  return `${role}\u0000${messageId}`;
}

import {
  codecFor,
  type WireCodec,
  type UpdateDecoder,
  type AnySessionUpdate,
  type PermissionRequest,
  SessionState,
  type AnyContentBlock,
} from '@acp-kit/protocol';
import type { CaptureFrame } from '../captures/capture.js';
import { at, isObj, stringAt } from '@acp-kit/protocol/internal';
import type {
  ClientTerminalView,
  ElicitationView,
  ForegroundChange,
  PermissionView,
  SessionItem,
  SessionView,
  Told,
} from './api-types.js';
import { elicitationView } from './elicitation-view.js';
import { sessionMessageItem, subagentItem } from './unstable-view.js';

export type {
  ClientTerminalView,
  EntityItem,
  ForegroundChange,
  PermissionView,
  SessionItem,
  SessionView,
  TerminalItem,
} from './api-types.js';

interface Tracked {
  state: SessionState;
  decoder: UpdateDecoder;
  /** entity key -> seqs that built it */
  provenance: Map<string, number[]>;
  /** entity key -> position of first sighting (for ordering permissions among timeline entries) */
  firstSeq: Map<string, number>;
  /** permission requests and elicitations, slotted among the timeline entries by their first seq */
  permissions: Array<PermissionView | ElicitationView>;
  foreground: ForegroundChange[];
  clientTerminals: Map<string, ClientTerminalView>;
  decodeErrors: Array<{ seq: number; message: string }>;
  /** the session that announced this one with `subagent_update` (unstable): shown nested in it */
  parent: string | undefined;
  archived: Told<boolean> | undefined;
  status: Told<{ status: string; state: string | undefined }> | undefined;
  forkOf: Told<string> | undefined;
  forks: Array<Told<string>>;
}

/** The unstable session methods whose successful answers change what the session view shows. */
const SESSION_ADMIN = new Set([
  'session/fork',
  'session/archive',
  'session/unarchive',
  'session/set_title',
  'session/status',
]);

interface OpenRequest {
  seq: number;
  method: string;
  sessionId: string | undefined;
  params: Record<string, unknown> | undefined;
}

/**
 * Feeds capture frames (in order) through the v1/v2 codecs into {@link SessionState}s, remembering
 * which frames built which entity. The protocol version comes from the `initialize` exchange; a
 * capture without one is sniffed from its first `session/update` (v2 updates carry `messageId`s
 * and `state_update`s).
 */
export class SessionViewBuilder {
  private version: 1 | 2 | undefined;
  private readonly sessions = new Map<string, Tracked>();
  private readonly open = new Map<string, OpenRequest>();

  /** The protocol version in use (undefined until known). */
  get protocolVersion(): 1 | 2 | undefined {
    return this.version;
  }

  /** Sets the version from a capture's meta line when the initialize exchange is not in the capture. */
  setVersion(v: number): void {
    if (this.version === undefined && (v === 1 || v === 2)) this.version = v;
  }

  /** Applies one frame (its JSON already parsed, or undefined for non-JSON lines). */
  push(frame: CaptureFrame, message: unknown): void {
    if (!isObj(message)) return;
    const m = message;
    const params = isObj(m.params) ? m.params : undefined;
    if (typeof m.method === 'string') {
      if ('id' in m)
        this.open.set(`${frame.dir}:${JSON.stringify(m.id)}`, {
          seq: frame.seq,
          method: m.method,
          sessionId: typeof params?.sessionId === 'string' ? params.sessionId : undefined,
          params,
        });
      this.onCall(frame, m.method, params, 'id' in m);
      return;
    }
    if (!('id' in m)) return;
    const key = `${frame.dir === 'editor->agent' ? 'agent->editor' : 'editor->agent'}:${JSON.stringify(m.id)}`;
    const req = this.open.get(key);
    if (!req) return;
    this.open.delete(key);
    this.onAnswer(frame, req, m.result, 'error' in m ? m.error : undefined);
  }

  /** Snapshot of every session seen so far. */
  views(): SessionView[] {
    // a subagent shows inside its parent's view, not as a session of its own
    return [...this.sessions.entries()]
      .filter(([, s]) => s.parent === undefined || !this.sessions.has(s.parent))
      .map(([id, s]) => this.view(id, s));
  }

  private codec(): WireCodec {
    return codecFor(this.version ?? 1);
  }

  private track(sessionId: string): Tracked {
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = {
        state: new SessionState(sessionId),
        decoder: this.codec().createUpdateDecoder(),
        provenance: new Map(),
        firstSeq: new Map(),
        permissions: [],
        foreground: [],
        clientTerminals: new Map(),
        decodeErrors: [],
        parent: undefined,
        archived: undefined,
        status: undefined,
        forkOf: undefined,
        forks: [],
      };
      this.sessions.set(sessionId, s);
    }
    return s;
  }

  private mark(s: Tracked, key: string, seq: number): void {
    let list = s.provenance.get(key);
    if (!list) {
      s.provenance.set(key, (list = []));
      s.firstSeq.set(key, seq);
    }
    if (list[list.length - 1] !== seq) list.push(seq);
  }

  private apply(s: Tracked, frame: CaptureFrame, u: AnySessionUpdate): void {
    s.state.apply(u);
    const key = entityKey(u);
    if (key) this.mark(s, key, frame.seq);
    if (u.sessionUpdate === 'state_update') {
      s.foreground.push({ seq: frame.seq, t: frame.t, state: u.state, stopReason: u.stopReason });
    }
    if (u.sessionUpdate === 'subagent_update') this.adopt(s.state.sessionId, u.sessionId);
  }

  /** `childId` is a subagent of `parentId`: its own session shows nested in the parent's (never in a cycle). */
  private adopt(parentId: string, childId: string): void {
    const child = this.track(childId);
    if (child.parent !== undefined) return;
    for (let p: string | undefined = parentId; p !== undefined; p = this.sessions.get(p)?.parent)
      if (p === childId) return;
    child.parent = parentId;
  }

  private onCall(
    frame: CaptureFrame,
    method: string,
    params: Record<string, unknown> | undefined,
    isRequest: boolean,
  ): void {
    const sessionId = typeof params?.sessionId === 'string' ? params.sessionId : undefined;
    if (method === 'session/update' && frame.dir === 'agent->editor' && sessionId !== undefined) {
      if (this.version === undefined) this.version = sniffVersion(params?.update);
      const s = this.track(sessionId);
      let updates: AnySessionUpdate[];
      try {
        updates = s.decoder.decode(params?.update);
      } catch (e) {
        s.decodeErrors.push({ seq: frame.seq, message: messageOf(e) });
        return;
      }
      for (const u of updates) this.apply(s, frame, u);
      return;
    }
    if (method === 'session/prompt' && frame.dir === 'editor->agent' && sessionId !== undefined && isRequest) {
      const s = this.track(sessionId);
      if (this.version !== 2) {
        // v1 agents do not echo the prompt: show it, and derive the foreground state from the request (as the client does)
        // shown as sent, valid or not: the inspector displays the wire, it does not judge it here
        const sent = params?.prompt;
        const prompt: AnyContentBlock[] = Array.isArray(sent) ? sent : [];
        this.apply(s, frame, { sessionUpdate: 'user_message', messageId: `prompt-${frame.seq}`, content: prompt });
        this.apply(s, frame, { sessionUpdate: 'state_update', state: 'running' });
        s.decoder.startTurn?.();
      }
      return;
    }
  }

  private onAnswer(frame: CaptureFrame, req: OpenRequest, result: unknown, error: unknown): void {
    const r = isObj(result) ? result : undefined;
    if (req.method === 'initialize' && frame.dir === 'agent->editor') {
      const pv = r?.protocolVersion;
      if (pv === 1 || pv === 2) this.version = pv;
      return;
    }
    if (req.method === 'session/new' && typeof r?.sessionId === 'string') {
      this.setup(this.track(r.sessionId), frame, 'session/new', r);
      return;
    }
    const s = req.sessionId !== undefined ? this.track(req.sessionId) : undefined;
    if (!s) return;
    if ((req.method === 'session/load' || req.method === 'session/resume') && r) this.setup(s, frame, req.method, r);
    else if (req.method === 'session/prompt' && this.version !== 2) {
      const stop = error !== undefined ? 'error' : typeof r?.stopReason === 'string' ? r.stopReason : null;
      this.apply(s, frame, { sessionUpdate: 'state_update', state: 'idle', stopReason: stop });
    } else if (req.method === 'session/request_permission') this.permission(s, frame, req, r, error);
    else if (req.method === 'elicitation/create') {
      const view = elicitationView(req.params, r, error !== undefined, [req.seq, frame.seq]);
      s.permissions.push(view);
      s.firstSeq.set(view.key, req.seq);
    } else if (req.method.startsWith('terminal/')) this.clientTerminal(s, frame, req, r);
    else if (SESSION_ADMIN.has(req.method) && r && error === undefined) this.sessionAdmin(s, frame, req, r);
  }

  /** The answer of an unstable session method: the fork, the archive flag, the title, the status. */
  private sessionAdmin(s: Tracked, frame: CaptureFrame, req: OpenRequest, r: Record<string, unknown>): void {
    const seq = frame.seq;
    if (req.method === 'session/fork' && typeof r.sessionId === 'string') {
      const fork = this.track(r.sessionId);
      fork.forkOf = { value: s.state.sessionId, seq };
      s.forks.push({ value: r.sessionId, seq });
      this.setup(fork, frame, 'session/fork', r);
    } else if (req.method === 'session/archive' || req.method === 'session/unarchive')
      s.archived = { value: req.method === 'session/archive', seq };
    else if (req.method === 'session/set_title') {
      // the agent may normalise the title: its answer wins over the request
      const title = stringAt(r, 'title') ?? stringAt(req.params, 'title');
      if (title !== undefined) s.state.apply({ sessionUpdate: 'session_info_update', title });
    } else if (req.method === 'session/status')
      s.status = { value: { status: stringAt(r, 'status') ?? '?', state: stringAt(r, 'state', 'state') }, seq };
  }

  private setup(
    s: Tracked,
    frame: CaptureFrame,
    method: 'session/new' | 'session/load' | 'session/resume' | 'session/fork',
    wire: Record<string, unknown>,
  ): void {
    try {
      s.state.applySetup(this.codec().decodeResult(method, wire));
    } catch (e) {
      s.decodeErrors.push({ seq: frame.seq, message: messageOf(e) });
    }
  }

  private permission(
    s: Tracked,
    frame: CaptureFrame,
    req: OpenRequest,
    result: Record<string, unknown> | undefined,
    error: unknown,
  ): void {
    let p: PermissionRequest | undefined;
    try {
      p = this.codec().decodeParams('session/request_permission', req.params);
    } catch (e) {
      s.decodeErrors.push({ seq: req.seq, message: messageOf(e) });
    }
    // read loosely: the subject of an unknown kind may still name its tool call
    const toolCallId = stringAt(p?.subject, 'toolCall', 'toolCallId') ?? stringAt(p?.subject, 'toolCallId');
    const outcome = {
      outcome: stringAt(result, 'outcome', 'outcome'),
      optionId: stringAt(result, 'outcome', 'optionId'),
    };
    const view: PermissionView = {
      kind: 'permission',
      key: `permission:${req.seq}`,
      title: p?.title ?? 'permission request',
      toolCallId,
      options: p?.options ?? [],
      outcome: error !== undefined ? 'error' : (outcome.outcome ?? 'pending'),
      optionId: outcome.optionId,
      seqs: [req.seq, frame.seq],
    };
    s.permissions.push(view);
    s.firstSeq.set(view.key, req.seq);
    if (toolCallId !== undefined) {
      this.mark(s, `tool_call:${toolCallId}`, req.seq);
      this.mark(s, `tool_call:${toolCallId}`, frame.seq);
    }
  }

  private clientTerminal(
    s: Tracked,
    frame: CaptureFrame,
    req: OpenRequest,
    r: Record<string, unknown> | undefined,
  ): void {
    const id =
      typeof r?.terminalId === 'string'
        ? r.terminalId
        : typeof req.params?.terminalId === 'string'
          ? req.params.terminalId
          : undefined;
    if (id === undefined) return;
    let t = s.clientTerminals.get(id);
    if (!t)
      s.clientTerminals.set(
        id,
        (t = { terminalId: id, command: undefined, output: '', exitStatus: undefined, seqs: [] }),
      );
    if (req.method === 'terminal/create')
      t.command = [req.params?.command, ...(Array.isArray(req.params?.args) ? req.params.args : [])]
        .filter((x) => typeof x === 'string')
        .join(' ');
    if (typeof r?.output === 'string') t.output = r.output;
    if (r?.exitStatus !== undefined && r.exitStatus !== null) t.exitStatus = r.exitStatus;
    if (req.method === 'terminal/wait_for_exit' && r) t.exitStatus = r;
    t.seqs.push(req.seq, frame.seq);
  }

  private view(sessionId: string, s: Tracked, seen: Set<string> = new Set()): SessionView {
    seen.add(sessionId);
    return {
      sessionId,
      protocolVersion: this.version ?? 1,
      title: s.state.info.title,
      items: this.items(s, seen),
      terminals: [...s.state.terminals.values()].map((t) => ({
        ...t.toJSON(),
        terminalId: t.terminalId,
        outputText: t.outputText,
        seqs: s.provenance.get(`terminal:${t.terminalId}`) ?? [],
      })),
      clientTerminals: [...s.clientTerminals.values()],
      foreground: s.foreground,
      usage: s.state.usage,
      archived: s.archived,
      status: s.status,
      forkOf: s.forkOf,
      forks: s.forks,
      decodeErrors: s.decodeErrors,
    };
  }

  /** The session's items: its timeline, with questions, subagents and session messages slotted by first seq. */
  private items(s: Tracked, seen: Set<string>): SessionItem[] {
    const timeline: Array<{ at: number; item: SessionItem }> = [];
    s.state.timeline.forEach((e, i) => {
      const json: Record<string, unknown> = { ...e.toJSON() };
      const key = timelineKey(json);
      // entries without provenance were built by setup results; keep them at their timeline position
      timeline.push({
        at: s.firstSeq.get(key) ?? i,
        item: { ...json, kind: e.kind, key, seqs: s.provenance.get(key) ?? [] },
      });
    });
    // a permission without frames (none is recorded so) goes last, as an unknown position always did
    const slotted: Array<{ at: number; item: SessionItem }> = s.permissions.map((p) => ({
      at: p.seqs[0] ?? Infinity,
      item: p,
    }));
    for (const sub of s.state.subagents.values()) {
      const key = `subagent:${sub.sessionId}`;
      const child = this.sessions.get(sub.sessionId);
      // a child already shown higher up (a cycle of announcements) is not nested again
      const nested =
        child && child.parent === s.state.sessionId && !seen.has(sub.sessionId)
          ? this.view(sub.sessionId, child, seen)
          : undefined;
      const item = subagentItem(sub, s.provenance.get(key) ?? [], nested);
      slotted.push({ at: s.firstSeq.get(key) ?? Infinity, item });
    }
    for (const m of s.state.sessionMessages.values()) {
      const key = `session_message:${m.messageId}`;
      slotted.push({ at: s.firstSeq.get(key) ?? Infinity, item: sessionMessageItem(m, s.provenance.get(key) ?? []) });
    }
    // stable: timeline order first (its own order is authoritative), the others slotted by first seq
    slotted.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? -1 : 1));
    const items: SessionItem[] = [];
    let pi = 0;
    for (const e of timeline) {
      for (let p = slotted[pi]; p && p.at < e.at; p = slotted[++pi]) items.push(p.item);
      items.push(e.item);
    }
    for (const p of slotted.slice(pi)) items.push(p.item);
    return items;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** v2 updates carry message ids and foreground states; v1 ones never do. */
function sniffVersion(update: unknown): 1 | 2 | undefined {
  const kind = at(update, 'sessionUpdate');
  if (kind === 'state_update' || typeof at(update, 'messageId') === 'string') return 2;
  if (typeof kind === 'string') return 1;
  return undefined;
}

function entityKey(u: AnySessionUpdate): string | undefined {
  switch (u.sessionUpdate) {
    case 'user_message':
    case 'user_message_chunk':
      return `message:user:${String(u.messageId)}`;
    case 'agent_message':
    case 'agent_message_chunk':
      return `message:agent:${String(u.messageId)}`;
    case 'agent_thought':
    case 'agent_thought_chunk':
      return `message:thought:${String(u.messageId)}`;
    case 'tool_call_update':
    case 'tool_call_content_chunk':
      return `tool_call:${String(u.toolCallId)}`;
    case 'plan_update':
      return `plan:${String(u.plan.planId)}`;
    case 'terminal_update':
    case 'terminal_output_chunk':
      return `terminal:${String(u.terminalId)}`;
    case 'compaction_update':
    case 'compaction_summary_chunk':
      return `compaction:${String(u.compactionId)}`;
    case 'subagent_update':
      return `subagent:${u.sessionId}`;
    case 'session_message':
    case 'session_message_chunk':
      return `session_message:${u.messageId}`;
    default:
      return undefined;
  }
}

function timelineKey(json: Record<string, unknown>): string {
  switch (json.kind) {
    case 'message':
      return `message:${String(json.role)}:${String(json.messageId)}`;
    case 'tool_call':
      return `tool_call:${String(json.toolCallId)}`;
    case 'plan':
      return `plan:${String(json.planId)}`;
    case 'compaction':
      return `compaction:${String(json.compactionId)}`;
    default:
      return `${String(json.kind)}:?`;
  }
}

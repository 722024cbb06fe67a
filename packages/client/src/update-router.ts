import type { UpdateDecoder, WireCodec, AnySessionUpdate } from '@acp-kit/protocol';
import type { ClientSession } from './client-session.js';
import type { ClientProblem } from './events.js';
import { isObj } from '@acp-kit/protocol/internal';

/** Bounds on what the router keeps for sessions it has no session object for. */
export interface UpdateRouterLimits {
  /** Distinct unknown session ids buffered at once; the oldest is dropped to make room (default 64). */
  maxUnknownSessions?: number;
  /** Closed session ids remembered (to report their late updates instead of buffering them; default 1024). */
  maxClosedIds?: number;
}

/**
 * Routes `session/update` notifications to sessions, in arrival order, decoding each with the
 * session's own (stateful) decoder. Updates for a session id that has no session object yet —
 * typically those an agent sends before its `session/new` response — are decoded and kept,
 * then applied in order when the session is claimed (ACP-V2-SESS-05). Invalid updates become
 * `invalid-update` problems, never exceptions.
 *
 * Memory is bounded whatever the agent sends: at most `maxBuffered` updates in all, for at most
 * `maxUnknownSessions` ids. On overflow the oldest unknown session's buffer is dropped first (a
 * flood of made-up ids cannot push out the session being opened now), and one `unknown-session`
 * problem is reported per overflow episode (until updates fit again without dropping).
 */
export class UpdateRouter {
  private readonly decoders = new Map<string, UpdateDecoder>();
  /** Unknown session id -> its updates, oldest id first (Map insertion order). */
  private readonly buffers = new Map<string, AnySessionUpdate[]>();
  private readonly sessions = new Map<string, ClientSession>();
  /** Child session id (announced by `subagent_update`, unstable) -> the top session that owns it. */
  private readonly owners = new Map<string, ClientSession>();
  /** Oldest first (Set insertion order), bounded by `maxClosedIds`. */
  private readonly closedIds = new Set<string>();
  private buffered = 0;
  private overflowing = false;
  private readonly maxUnknownSessions: number;
  private readonly maxClosedIds: number;

  constructor(
    private readonly codec: WireCodec,
    private readonly problem: (p: ClientProblem) => void,
    /** Updates buffered for unknown sessions, in all. */
    private readonly maxBuffered: number,
    limits: UpdateRouterLimits = {},
  ) {
    this.maxUnknownSessions = limits.maxUnknownSessions ?? 64;
    this.maxClosedIds = limits.maxClosedIds ?? 1024;
  }

  /** @internal what is retained for unknown/closed sessions (tests of the bounds) */
  get retained(): { bufferedUpdates: number; unknownSessions: number; decoders: number; closedIds: number } {
    return {
      bufferedUpdates: this.buffered,
      unknownSessions: this.buffers.size,
      decoders: this.decoders.size,
      closedIds: this.closedIds.size,
    };
  }

  get all(): ReadonlyMap<string, ClientSession> {
    return this.sessions;
  }

  /** Handles the params of one `session/update` notification. */
  route(params: unknown): void {
    const p = params;
    if (!isObj(p) || typeof p.sessionId !== 'string') {
      this.problem({
        kind: 'invalid-update',
        message: 'session/update: params.sessionId must be a string',
        detail: params,
      });
      return;
    }
    const sessionId = p.sessionId;
    const session = this.sessions.get(sessionId);
    const owner = session ? undefined : this.owners.get(sessionId);
    if (owner) return this.routeChild(owner, sessionId, p.update);
    if (!session && this.closedIds.has(sessionId)) {
      this.problem({
        kind: 'unknown-session',
        sessionId,
        message: `session/update for closed session ${sessionId} ignored`,
        detail: p.update,
      });
      return;
    }
    let dropped = false;
    if (!session && !this.buffers.has(sessionId)) {
      // a new unknown id: make room first, so its decoder and buffer never exceed the bound
      if (this.buffers.size >= this.maxUnknownSessions) {
        this.dropOldestBuffer(sessionId);
        dropped = true;
      }
      this.buffers.set(sessionId, []);
    }
    let updates: AnySessionUpdate[];
    try {
      updates = this.decoder(sessionId).decode(p.update);
    } catch (e) {
      this.problem({
        kind: 'invalid-update',
        sessionId,
        message: `session/update for ${sessionId}: ${e instanceof Error ? e.message : String(e)}`,
        detail: { error: e, update: p.update },
      });
      return;
    }
    if (session) {
      for (const u of updates) this.deliver(session, u);
      return;
    }
    // made above for an unknown id; made again should decoding have dropped it
    const buf = this.buffers.get(sessionId) ?? [];
    this.buffers.set(sessionId, buf);
    // over the total: drop whole buffers of older unknown sessions, then (alone) this update
    while (this.buffered + updates.length > this.maxBuffered && this.buffers.size > 1) {
      this.dropOldestBuffer(sessionId);
      dropped = true;
    }
    if (this.buffered + updates.length > this.maxBuffered) {
      this.overflow(
        sessionId,
        `more than ${this.maxBuffered} updates buffered for unknown session ${sessionId}; dropping the rest until it is opened`,
      );
      return;
    }
    for (const u of updates) buf.push(u);
    this.buffered += updates.length;
    if (!dropped) this.overflowing = false;
  }

  /** Drops the buffer (and decoder) of the oldest unknown session other than `keep`. */
  private dropOldestBuffer(keep: string): void {
    for (const [id, buf] of this.buffers) {
      if (id === keep) continue;
      this.buffers.delete(id);
      this.decoders.delete(id);
      this.buffered -= buf.length;
      this.overflow(
        id,
        `updates for unknown sessions exceed the limit (${this.maxUnknownSessions} session ids, ${this.maxBuffered} updates); dropped the ${buf.length} buffered for ${id}, the oldest, and keep dropping the oldest while this lasts`,
      );
      return;
    }
  }

  private overflow(sessionId: string, message: string): void {
    if (this.overflowing) return;
    this.overflowing = true;
    this.problem({ kind: 'unknown-session', sessionId, message });
  }

  /**
   * Starts routing `sessionId` to `session`. `fresh` resets the decoder (a new state for a
   * load/resume replay) and drops what was buffered; otherwise buffered updates are applied first.
   */
  claim(sessionId: string, session: ClientSession, fresh = false): void {
    this.closedIds.delete(sessionId);
    const buf = this.takeBuffer(sessionId);
    if (fresh) this.decoders.delete(sessionId);
    this.sessions.set(sessionId, session);
    if (buf && !fresh) for (const u of buf) this.deliver(session, u);
  }

  private takeBuffer(sessionId: string): AnySessionUpdate[] | undefined {
    const buf = this.buffers.get(sessionId);
    if (buf) {
      this.buffers.delete(sessionId);
      this.buffered -= buf.length;
    }
    return buf;
  }

  /** Stops routing `sessionId` (after close / delete / a failed setup). */
  release(sessionId: string, closed = true): void {
    this.sessions.delete(sessionId);
    for (const [child, owner] of this.owners) if (owner.sessionId === sessionId) this.owners.delete(child);
    this.takeBuffer(sessionId);
    this.decoders.delete(sessionId);
    if (closed) {
      this.closedIds.delete(sessionId);
      this.closedIds.add(sessionId);
      // forget the oldest: a late update for it is then buffered (bounded) instead of reported
      const oldest = this.closedIds.values().next();
      if (this.closedIds.size > this.maxClosedIds && !oldest.done) this.closedIds.delete(oldest.value);
    }
  }

  /** The client starts a prompt turn in `sessionId` (v1: the next id-less chunk is a new message). */
  startTurn(sessionId: string): void {
    this.decoders.get(sessionId)?.startTurn?.();
  }

  private decoder(sessionId: string): UpdateDecoder {
    let d = this.decoders.get(sessionId);
    if (!d) this.decoders.set(sessionId, (d = this.codec.createUpdateDecoder()));
    return d;
  }

  /** A child session's update: decoded with its own decoder, applied to its nested state. */
  private routeChild(owner: ClientSession, childId: string, wire: unknown): void {
    try {
      for (const u of this.decoder(childId).decode(wire)) {
        if (u.sessionUpdate === 'subagent_update') this.owners.set(u.sessionId, owner);
        owner.state.applyChild(childId, u);
      }
    } catch (e) {
      this.problem({
        kind: 'invalid-update',
        sessionId: childId,
        message: `session/update for ${childId}: ${e instanceof Error ? e.message : String(e)}`,
        detail: { error: e, update: wire },
      });
    }
  }

  private deliver(session: ClientSession, update: AnySessionUpdate): void {
    if (update.sessionUpdate === 'subagent_update') this.owners.set(update.sessionId, session);
    try {
      session.receive(update);
    } catch (e) {
      this.problem({
        kind: 'handler-error',
        sessionId: session.sessionId,
        message: `applying ${update.sessionUpdate} failed: ${e instanceof Error ? e.message : String(e)}`,
        detail: e,
      });
    }
  }
}

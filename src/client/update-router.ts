import type { UpdateDecoder, WireCodec } from '../protocol/codec/types.js';
import type { AnySessionUpdate } from '../protocol/model/update.js';
import type { ClientSession } from './client-session.js';
import type { ClientProblem } from './events.js';

/**
 * Routes `session/update` notifications to sessions, in arrival order, decoding each with the
 * session's own (stateful) decoder. Updates for a session id that has no session object yet —
 * typically those an agent sends before its `session/new` response — are decoded and kept,
 * then applied in order when the session is claimed (ACP-V2-SESS-05). Invalid updates become
 * `invalid-update` problems, never exceptions.
 */
export class UpdateRouter {
  private readonly decoders = new Map<string, UpdateDecoder>();
  private readonly buffers = new Map<string, AnySessionUpdate[]>();
  private readonly sessions = new Map<string, ClientSession>();
  private readonly closedIds = new Set<string>();
  private readonly overflowReported = new Set<string>();

  constructor(
    private readonly codec: WireCodec,
    private readonly problem: (p: ClientProblem) => void,
    private readonly maxBuffered: number,
  ) {}

  get all(): ReadonlyMap<string, ClientSession> {
    return this.sessions;
  }

  /** Handles the params of one `session/update` notification. */
  route(params: unknown): void {
    const p = params as { sessionId?: unknown; update?: unknown } | null;
    if (!p || typeof p !== 'object' || typeof p.sessionId !== 'string') {
      this.problem({ kind: 'invalid-update', message: 'session/update: params.sessionId must be a string', detail: params });
      return;
    }
    const sessionId = p.sessionId;
    let updates: AnySessionUpdate[];
    try {
      updates = this.decoder(sessionId).decode(p.update);
    } catch (e) {
      this.problem({ kind: 'invalid-update', sessionId, message: `session/update for ${sessionId}: ${(e as Error)?.message ?? String(e)}`, detail: { error: e, update: p.update } });
      return;
    }
    const session = this.sessions.get(sessionId);
    if (session) {
      for (const u of updates) this.deliver(session, u);
      return;
    }
    if (this.closedIds.has(sessionId)) {
      this.problem({ kind: 'unknown-session', sessionId, message: `session/update for closed session ${sessionId} ignored`, detail: p.update });
      return;
    }
    let buf = this.buffers.get(sessionId);
    if (!buf) this.buffers.set(sessionId, (buf = []));
    if (buf.length + updates.length > this.maxBuffered) {
      if (!this.overflowReported.has(sessionId)) {
        this.overflowReported.add(sessionId);
        this.problem({ kind: 'unknown-session', sessionId, message: `more than ${this.maxBuffered} updates for unknown session ${sessionId}; dropping the rest` });
      }
      return;
    }
    buf.push(...updates);
  }

  /**
   * Starts routing `sessionId` to `session`. `fresh` resets the decoder (a new state for a
   * load/resume replay) and drops what was buffered; otherwise buffered updates are applied first.
   */
  claim(sessionId: string, session: ClientSession, fresh = false): void {
    this.closedIds.delete(sessionId);
    if (fresh) {
      this.decoders.delete(sessionId);
      this.buffers.delete(sessionId);
    }
    this.sessions.set(sessionId, session);
    const buf = this.buffers.get(sessionId);
    this.buffers.delete(sessionId);
    this.overflowReported.delete(sessionId);
    if (buf) for (const u of buf) this.deliver(session, u);
  }

  /** Stops routing `sessionId` (after close / delete / a failed setup). */
  release(sessionId: string, closed = true): void {
    this.sessions.delete(sessionId);
    this.buffers.delete(sessionId);
    this.decoders.delete(sessionId);
    if (closed) this.closedIds.add(sessionId);
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

  private deliver(session: ClientSession, update: AnySessionUpdate): void {
    try {
      session.receive(update);
    } catch (e) {
      this.problem({ kind: 'handler-error', sessionId: session.sessionId, message: `applying ${update.sessionUpdate} failed: ${(e as Error)?.message ?? String(e)}`, detail: e });
    }
  }
}

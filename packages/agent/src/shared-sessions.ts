import type { SessionRuntime } from './session-runtime.js';

/**
 * The v2 sessions open in this process that several client connections may share (pass one
 * instance to every {@link serveAgent} call whose clients may see each other's sessions, e.g. the
 * connections of one token of `acp-kit serve`). A second connection that resumes or loads a
 * session open here attaches to the same runtime instead of opening a second one: it gets the
 * history, then the same live updates in the same order as the others; prompts from any client
 * join one queue, a permission question goes to every client (the first answer wins), a cancel
 * from any client cancels the turn, and a client leaving only detaches it. The session (and its
 * store lock) belongs to the process: it is closed when its last client leaves or it is deleted.
 */
export class SharedSessions {
  private readonly open = new Map<string, SessionRuntime>();
  /**
   * Sessions a v1 connection has open (v1 has no shared sessions): a second connection restoring one
   * of them is refused like a session another process holds, instead of a second runtime writing
   * the same history beside it (the store's lock is the process's, so it would not stop it).
   */
  private readonly held = new Map<string, SessionRuntime>();
  /** Sessions whose last client left and that are closing (their turn ending, their history being written). */
  private readonly closing = new Map<string, Promise<void>>();

  /** The open runtime of `sessionId`, if some connection has it open. */
  get(sessionId: string): SessionRuntime | undefined {
    return this.open.get(sessionId);
  }

  /** Sessions open at the moment. */
  get size(): number {
    return this.open.size;
  }

  /** @internal registers a session a connection opened */
  add(session: SessionRuntime): void {
    this.open.set(session.sessionId, session);
  }

  /** @internal forgets `session` (closing); a newer runtime of the same id stays */
  delete(session: SessionRuntime): void {
    if (this.open.get(session.sessionId) === session) this.open.delete(session.sessionId);
    if (this.held.get(session.sessionId) === session) this.held.delete(session.sessionId);
  }

  /** @internal registers a session a connection opened for itself alone (v1) */
  hold(session: SessionRuntime): void {
    this.held.set(session.sessionId, session);
  }

  /** @internal the runtime of `sessionId` one connection holds for itself alone, if any */
  holder(sessionId: string): SessionRuntime | undefined {
    return this.held.get(sessionId);
  }

  /**
   * @internal `sessionId` is closing until `done` settles: a restore of it on another connection
   * (a client back after a drop) waits for that, so it reads the whole history and never opens a
   * second runtime beside one still writing.
   */
  closingUntil(sessionId: string, done: Promise<void>): void {
    const all = Promise.all([this.closing.get(sessionId), done.catch(() => undefined)]).then(() => undefined);
    this.closing.set(sessionId, all);
    void all.then(() => {
      if (this.closing.get(sessionId) === all) this.closing.delete(sessionId);
    });
  }

  /** Resolves once no close of `sessionId` is under way. */
  async whenClosed(sessionId: string): Promise<void> {
    for (let c = this.closing.get(sessionId); c; c = this.closing.get(sessionId)) await c;
  }
}

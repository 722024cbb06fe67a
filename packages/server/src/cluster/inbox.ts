import type { PgPool as Pool } from '../store/postgres/pg-types.js';
import { AcpError } from '@acp-kit/protocol';
import { INBOX_CHANNEL } from './schema.js';

/** What a follower asks the owner of a session to do. */
export type InboxKind = 'attach' | 'detach' | 'request' | 'notify' | 'answer';

/** A request in the inbox of this instance (it owns the session). */
export interface InboxRequest {
  id: string;
  namespace: string;
  sessionId: string;
  from: string;
  kind: InboxKind;
  payload: unknown;
}

/** The answer an owner writes back: a JSON-RPC result or error object. */
export type InboxAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

interface Waiting {
  resolve(result: unknown): void;
  reject(e: AcpError): void;
  to: string;
}

/**
 * The requests between instances, as rows of `acp_inbox`: a follower inserts one for the owner of
 * a session and `NOTIFY acp_inbox, 'to:<owner>'`; the owner handles the open rows of its inbox in
 * id order, writes the result and `NOTIFY acp_inbox, 'done:<follower>'`. Notifications only wake:
 * both sides also poll, so a lost notification delays a request, never loses it.
 */
export class Inbox {
  private readonly waiting = new Map<string, Waiting>();
  /** readAnswers() calls so far: a send whose insert saw one happen re-reads once registered */
  private answerWakes = 0;
  /** Requests of this instance's inbox handed to the handler and still open in the table. */
  private readonly taking = new Set<string>();
  private reading = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly instanceId: string,
    private readonly handle: (r: InboxRequest) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Sends a request to the owner `to` and resolves with its result (rejects with its error). */
  async send(namespace: string, sessionId: string, to: string, kind: InboxKind, payload: unknown): Promise<unknown> {
    // nobody would read its answer
    if (this.stopped) throw AcpError.internal('the instance is stopping');
    const wakes = this.answerWakes;
    const r = await this.pool.query<{ id: string }>(
      `with ins as (insert into acp_inbox (namespace, session_id, to_owner, from_owner, kind, payload) values ($1, $2, $3, $4, $5, $6) returning id)
       select id, pg_notify('${INBOX_CHANNEL}', 'to:' || $3) from ins`,
      [namespace, sessionId, to, this.instanceId, kind, JSON.stringify(payload ?? null)],
    );
    const id = r.rows[0]?.id;
    if (id === undefined) throw new Error(`the inbox insert for session ${sessionId} returned no row`);
    const answer = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject, to }));
    // the owner can answer before the insert's result is back here (its NOTIFY on the LISTEN
    // connection overtakes this pool query's reply): that wake found nothing waiting, so read again
    // now instead of leaving the answer to the next poll
    if (this.answerWakes !== wakes) void this.readAnswers().catch(() => undefined);
    return answer;
  }

  /** Requests of this instance still waiting for an answer. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Fails every request waiting for `owner` (its lease expired: it will not answer). */
  failPendingTo(owner: string, error: AcpError): void {
    for (const [id, w] of [...this.waiting]) {
      if (w.to !== owner) continue;
      this.waiting.delete(id);
      w.reject(error);
    }
  }

  /** Reads the answers to this instance's requests (woken by `done:`, and on every poll). */
  async readAnswers(): Promise<void> {
    this.answerWakes++;
    if (this.waiting.size === 0) return;
    const ids = [...this.waiting.keys()];
    const r = await this.pool.query<{
      id: string;
      result: unknown;
      error: { code: number; message: string; data?: unknown } | null;
    }>('select id, result, error from acp_inbox where id = any($1::bigint[]) and done_at is not null', [ids]);
    for (const row of r.rows) {
      const w = this.waiting.get(row.id);
      if (!w) continue;
      this.waiting.delete(row.id);
      if (row.error) w.reject(new AcpError(row.error.code, row.error.message, row.error.data));
      else w.resolve(row.result);
    }
    if (r.rows.length > 0)
      await this.pool
        .query('delete from acp_inbox where id = any($1::bigint[])', [r.rows.map((row) => row.id)])
        .catch(() => undefined);
  }

  /** Reads this instance's open requests, oldest first, and hands each to the handler once. */
  async readRequests(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.again = false;
        const r = await this.pool.query<{
          id: string;
          namespace: string;
          session_id: string;
          from_owner: string;
          kind: InboxKind;
          payload: unknown;
        }>(
          'select id, namespace, session_id, from_owner, kind, payload from acp_inbox where to_owner = $1 and done_at is null order by id',
          [this.instanceId],
        );
        // answered rows are no longer open: forget them (a row still open stays taken)
        const open = new Set(r.rows.map((row) => row.id));
        for (const id of [...this.taking]) if (!open.has(id)) this.taking.delete(id);
        for (const row of r.rows) {
          if (this.taking.has(row.id)) continue;
          this.taking.add(row.id);
          this.handle({
            id: row.id,
            namespace: row.namespace,
            sessionId: row.session_id,
            from: row.from_owner,
            kind: row.kind,
            payload: row.payload,
          });
        }
      } while (this.again);
    } finally {
      this.reading = false;
    }
  }

  /** Writes the answer of a request this instance handled and wakes its sender. */
  async answer(req: InboxRequest, answer: InboxAnswer): Promise<void> {
    try {
      await this.pool.query(
        `with upd as (update acp_inbox set result = $2, error = $3, done_at = now() where id = $1 returning from_owner)
         select pg_notify('${INBOX_CHANNEL}', 'done:' || from_owner) from upd`,
        [
          req.id,
          'result' in answer ? JSON.stringify(answer.result ?? null) : null,
          'error' in answer ? JSON.stringify(answer.error) : null,
        ],
      );
    } catch (e) {
      this.log(
        `could not answer inbox request ${req.id} (${req.kind}) from ${req.from}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  /** Rejects whatever still waits (the instance stops). */
  stop(): void {
    this.stopped = true;
    for (const w of this.waiting.values()) w.reject(AcpError.internal('the instance is stopping'));
    this.waiting.clear();
  }
}

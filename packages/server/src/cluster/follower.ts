import { randomUUID } from 'node:crypto';
import {
  codecFor,
  type UpdateEncoder,
  type ClientCapabilities,
  type ConfigOption,
  type AnySessionUpdate,
  getValidator,
} from '@acp-kit/protocol';
import { isObj, LAST_TURN_META_KEY } from '@acp-kit/protocol/internal';
import { lifecycleFor, replayHistory } from '@acp-kit/agent/internal';
import type { AgentLogger } from '@acp-kit/agent';
import { isControlRow, PERMISSION } from './control.js';
import type { FollowerSetup } from './owner-link.js';
import { lastTurnOf } from './last-turn.js';

/** One row of `acp_updates`. */
export interface UpdateRow {
  seq: number;
  live: boolean;
  body: unknown;
}

/** What a follower needs from its connection and instance. */
export interface FollowerContext {
  namespace: string;
  sessionId: string;
  clientCapabilities: ClientCapabilities;
  logger: AgentLogger;
  /** Writes a JSON-RPC message to the client. */
  send(message: object): void;
  whenWritable(): Promise<void>;
  /** Rows of the session with `seq > after`, in seq order. */
  readRows(after: number): Promise<UpdateRow[]>;
  /** Sends a request to the session's current owner through the inbox. */
  toOwner(
    kind: 'attach' | 'detach' | 'request' | 'notify' | 'answer',
    payload: Record<string, unknown>,
  ): Promise<unknown>;
}

const V2 = lifecycleFor(2);
/** A gap in the seqs (a batch of the owner not committed yet) is waited for this long before it is skipped. */
const GAP_WAIT_MS = 5000;

/**
 * A client on this instance attached to a session another instance owns (or one it used to own):
 * the history from the table, replayed with the runtime's replay rules and the client's own
 * encoder, then every row after it in seq order (woken by NOTIFY, and by the instance's poll),
 * no row twice. The client's requests for the session and its permission answers go to the owner
 * through the inbox.
 */
export class Follower {
  readonly id = randomUUID();
  private last = 0;
  private encoder: UpdateEncoder;
  private tailing = false;
  private again = false;
  private started = false;
  private closed = false;
  private gapSince = 0;
  /** questionId -> the id of the request put to the client */
  private readonly asked = new Map<string, string>();
  /** request id -> questionId */
  private readonly askedBy = new Map<string, string>();
  private nextId = 0;

  constructor(
    private readonly ctx: FollowerContext,
    readonly setup: FollowerSetup,
  ) {
    this.encoder = codecFor(2).createUpdateEncoder({ clientCapabilities: ctx.clientCapabilities });
  }

  /** The last seq delivered (or replayed) to the client. */
  get lastSeq(): number {
    return this.last;
  }

  /**
   * Attaches through the owner and writes the history (when `replay`) and the foreground state to
   * the client; resolves with the owner's setup result, to be answered after them. Tailing starts
   * with {@link start}, once the answer is written.
   */
  async open(replay: boolean): Promise<Record<string, unknown>> {
    const res = await this.ctx.toOwner('attach', this.payload());
    const result = isObj(res) ? { ...res } : {};
    const configOptions = Array.isArray(result.configOptions) ? (result.configOptions as ConfigOption[]) : [];
    this.encoder = codecFor(2).createUpdateEncoder({ clientCapabilities: this.ctx.clientCapabilities, configOptions });
    const rows = await this.readHistory();
    const upTo = contiguous(rows, 0);
    const seen = rows.slice(0, upTo);
    if (replay) {
      await replayHistory(
        {
          sessionId: this.ctx.sessionId,
          lifecycle: V2,
          encoder: this.encoder,
          validator: getValidator(2),
          logger: this.ctx.logger,
          notify: (wire) => this.notifyUpdate(wire),
          whenWritable: () => this.ctx.whenWritable(),
        },
        { updates: seen.filter((r) => !r.live && isObj(r.body)).map((r) => r.body as AnySessionUpdate) },
      );
    }
    // the foreground state as of the snapshot (ACP-V2-RESUME-08), then the questions still open
    let state: unknown = 'idle';
    const open = new Map<string, Record<string, unknown>>();
    for (const r of seen) {
      if (!r.live || !isObj(r.body)) continue;
      if (r.body.sessionUpdate === 'state_update') state = r.body.state;
      else if (isControlRow(r.body)) {
        if (r.body.sessionUpdate === PERMISSION) open.set(r.body.questionId, r.body.request);
        else open.delete(r.body.questionId);
      }
    }
    // an idle snapshot names how the last turn ended: a client that lost its connection before that
    // end reached it (a restart in the middle of a turn) resolves its prompt with it, not null
    const turn = lastTurnOf(seen);
    const foreground = state === 'running' || state === 'requires_action' ? state : 'idle';
    this.sendUpdate({
      sessionUpdate: 'state_update',
      state: foreground,
      ...(foreground === 'idle' && turn ? { _meta: { [LAST_TURN_META_KEY]: turn } } : {}),
    });
    for (const [questionId, request] of open) this.askClient(questionId, request);
    this.last = seen.at(-1)?.seq ?? 0;
    return result;
  }

  /**
   * Every row stored so far, page after page: the replay is written before the answer, so a long
   * history must not stop at the first page (it used to: the rest came after the answer).
   */
  private async readHistory(): Promise<UpdateRow[]> {
    const rows: UpdateRow[] = [];
    for (;;) {
      const page = await this.ctx.readRows(rows.at(-1)?.seq ?? 0);
      if (page.length === 0) return rows;
      rows.push(...page);
    }
  }

  /** Starts delivering rows after the snapshot. */
  start(): void {
    this.started = true;
    void this.wake();
  }

  /** Reads and delivers the rows after the last one delivered (no-op while reading: it reads again after). */
  async wake(): Promise<void> {
    if (!this.started || this.closed) return;
    if (this.tailing) {
      this.again = true;
      return;
    }
    this.tailing = true;
    try {
      do {
        this.again = false;
        const rows = await this.ctx.readRows(this.last);
        let n = contiguous(rows, this.last);
        if (n < rows.length) {
          // a seq is missing: a batch still committing; wait for it, but not forever
          if (this.gapSince === 0) this.gapSince = Date.now();
          const first = rows[0];
          if (n === 0 && first !== undefined && Date.now() - this.gapSince > GAP_WAIT_MS) {
            this.ctx.logger.warn(
              `session ${this.ctx.sessionId}: seq ${this.last + 1} missing for ${GAP_WAIT_MS} ms; skipped to ${first.seq}`,
            );
            n = contiguous(rows, first.seq - 1);
            this.gapSince = 0;
          }
        } else this.gapSince = 0;
        for (const row of rows.slice(0, n)) {
          if (this.closed) return;
          this.deliver(row);
          this.last = row.seq;
        }
      } while (this.again && !this.closed);
    } catch (e) {
      this.ctx.logger.warn(
        `session ${this.ctx.sessionId}: reading its updates failed (${e instanceof Error ? e.message : String(e)}); the next poll tries again`,
      );
    } finally {
      this.tailing = false;
    }
  }

  private deliver(row: UpdateRow): void {
    const body = row.body;
    if (!isObj(body)) return;
    if (isControlRow(body)) {
      if (body.sessionUpdate === PERMISSION) this.askClient(body.questionId, body.request);
      else this.withdraw(body.questionId);
      return;
    }
    // the prompt's user message is stored at insertion and echoed live (a live row follows): once
    if (!row.live && body.sessionUpdate === 'user_message') return;
    this.sendUpdate(body as AnySessionUpdate);
  }

  private sendUpdate(u: AnySessionUpdate): void {
    let wires: object[];
    try {
      wires = this.encoder.encode(u);
    } catch (e) {
      this.ctx.logger.warn(
        `session ${this.ctx.sessionId}: update ${String(u.sessionUpdate)} not sent to a follower: ${e instanceof Error ? e.message : String(e)}`,
      );
      return;
    }
    for (const w of wires) this.notifyUpdate(w);
  }

  private notifyUpdate(wire: object): void {
    this.ctx.send({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: this.ctx.sessionId, update: wire },
    });
  }

  private askClient(questionId: string, request: Record<string, unknown>): void {
    if (this.asked.has(questionId)) return;
    const id = `acp-kit-cluster-${this.id.slice(0, 8)}-${++this.nextId}`;
    this.asked.set(questionId, id);
    this.askedBy.set(id, questionId);
    this.ctx.send({
      jsonrpc: '2.0',
      id,
      method: 'session/request_permission',
      params: { ...request, sessionId: this.ctx.sessionId },
    });
  }

  private withdraw(questionId: string): void {
    const id = this.asked.get(questionId);
    if (id === undefined) return;
    this.asked.delete(questionId);
    if (this.askedBy.delete(id))
      this.ctx.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: id } });
  }

  /** Whether a response from the client is to one of this follower's questions (then it is handled). */
  takeResponse(message: Record<string, unknown>): boolean {
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (id === undefined) return false;
    const questionId = this.askedBy.get(id);
    if (questionId === undefined) return false;
    this.askedBy.delete(id);
    this.asked.delete(questionId);
    if ('result' in message) {
      this.ctx.toOwner('answer', { ...this.payload(), questionId, result: message.result }).catch((e: Error) => {
        this.ctx.logger.warn(
          `session ${this.ctx.sessionId}: a permission answer could not reach the owner: ${e.message}`,
        );
      });
    }
    return true;
  }

  /** A request of the client for this session, carried out by the owner. */
  request(method: string, params: unknown): Promise<unknown> {
    return this.ctx.toOwner('request', { ...this.payload(), method, params });
  }

  /** A notification of the client for this session (`session/cancel`). */
  notify(method: string, params: unknown): void {
    this.ctx.toOwner('notify', { ...this.payload(), method, params }).catch((e: Error) => {
      this.ctx.logger.warn(`session ${this.ctx.sessionId}: ${method} could not reach the owner: ${e.message}`);
    });
  }

  /** What every inbox request carries: who is asking, and the setup to open the session with after a failover. */
  payload(): Record<string, unknown> {
    return { followerId: this.id, setup: this.setup };
  }

  /** The client is done with the session (close, or its connection ended). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const questionId of [...this.asked.keys()]) this.withdraw(questionId);
    await this.ctx.toOwner('detach', this.payload()).catch(() => undefined);
  }
}

/** How many rows from the start of `rows` continue `after` without a gap. */
function contiguous(rows: readonly UpdateRow[], after: number): number {
  let n = 0;
  let expect = after + 1;
  for (const r of rows) {
    if (r.seq !== expect) break;
    n++;
    expect++;
  }
  return n;
}

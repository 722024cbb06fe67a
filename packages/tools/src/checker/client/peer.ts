import type { Socket } from 'node:net';
import { at, isObj } from '@acp-kit/protocol/internal';
import { preview, type WireId, type WireMessage } from '../driver.js';
import { hasMessage, isEnvelopeFailure, WireLog, type MessageLine } from '../wire.js';

/** A message from the client, with its place in the transcript. */
export type Received = WireMessage & { seq: number };

/**
 * The scripted agent's end of one connection to the client under test (through the relay the
 * client launched). Keeps a transcript of every line both ways, checks what the client writes
 * (framing, JSON-RPC envelope, ids of its answers, the official schema once the version is
 * agreed) and lets a case send, answer and wait. Requests the case does not take are answered
 * -32601, as an agent with no such method would.
 */
export class ClientPeer extends WireLog {
  /** The version the scripted agent answered; schema checks of the client's messages use it. */
  version: 1 | 2 | undefined;
  /** The protocolVersion the client asked for in initialize. */
  asked: number | undefined;
  /** Methods a case will take with {@link takeRequest}; other requests are answered -32601 at once. */
  readonly handled = new Set(['initialize', 'session/new', 'session/prompt']);

  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly taken = new Set<number>();
  private ended = false;

  /** `initial`: bytes that came with the relay's first line. */
  constructor(
    private readonly socket: Socket,
    initial: Buffer = Buffer.alloc(0),
  ) {
    // the client's schema failures are the capture validator's, under the schema of the version
    super('editor->agent', {
      attribute: ({ version, failure }) => (isEnvelopeFailure(failure) ? undefined : `schema/v${version}`),
    });
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => undefined);
    if (initial.length > 0) this.onData(initial);
  }

  /** False once the client closed the agent's stdin (or the relay died). */
  get open(): boolean {
    return !this.ended;
  }

  /** Writes one raw line to the client (the scripted agent's stdout). */
  writeRaw(text: string): number {
    const seq = this.recordOut(text);
    if (!this.ended) this.socket.write(`${text}\n`);
    return seq;
  }

  /** Sends a request of the agent's; returns its seq. */
  send(method: string, params: unknown, id: WireId): number {
    const seq = this.writeRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    this.track(id, method, seq);
    return seq;
  }

  /** Sends a request and waits for the client's answer (matched by the exact id). */
  async request(method: string, params: unknown, id: WireId, ms: number): Promise<Received> {
    const seq = this.send(method, params, id);
    return this.answerTo(id, seq, ms, `the client's answer to ${method} (id ${JSON.stringify(id)})`);
  }

  notify(method: string, params: unknown): number {
    return this.writeRaw(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** A session/update notification. */
  update(sessionId: string, update: Record<string, unknown>, extra: Record<string, unknown> = {}): number {
    return this.notify('session/update', { sessionId, update, ...extra });
  }

  respond(req: Received, result: unknown): number {
    return this.writeRaw(JSON.stringify({ jsonrpc: '2.0', id: req.id, result }));
  }

  respondError(req: Received, code: number, message: string): number {
    return this.writeRaw(JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code, message } }));
  }

  /** Waits for the next request of `method` from the client that no case took yet. */
  async takeRequest(method: string, ms: number, after = 0): Promise<Received> {
    const line = await this.waitFor(
      (l): l is MessageLine =>
        l.dir === 'in' &&
        l.seq > after &&
        hasMessage(l) &&
        l.msg.method === method &&
        l.msg.id !== undefined &&
        !this.taken.has(l.seq),
      ms,
      `the client's ${method} request`,
    );
    this.taken.add(line.seq);
    return { ...line.msg, seq: line.seq };
  }

  /** Waiting ends with {@link ClientGone} once the client closed the connection. */
  protected gone(what: string): Error | undefined {
    return this.ended
      ? new ClientGone(`${what} did not arrive: the client closed the agent's stdin (or ended)`)
      : undefined;
  }

  /** Ends the scripted agent: the relay exits, as an agent process would. */
  close(): void {
    this.ended = true;
    this.socket.destroy();
    this.wake();
  }

  protected onLine(bytes: Buffer): void {
    const seq = ++this.seq;
    let raw: string;
    try {
      raw = this.decoder.decode(bytes).replace(/\r$/, '');
    } catch {
      this.record({ seq, dir: 'in', raw: bytes.toString('utf8') });
      return this.fail('ACP-ALL-TRANS-06', "the client wrote a line to the agent's stdin that is not valid UTF-8", [
        seq,
      ]);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      this.record({ seq, dir: 'in', raw });
      return this.fail(
        'ACP-ALL-TRANS-06',
        `the client wrote a line to the agent's stdin that is not a JSON message: ${preview(raw)}`,
        [seq],
      );
    }
    if (Array.isArray(parsed)) {
      this.record({ seq, dir: 'in', raw }, false);
      return this.onBatch(parsed, seq);
    }
    if (!isObj(parsed)) {
      this.record({ seq, dir: 'in', raw });
      return this.fail(
        'ACP-ALL-TRANS-06',
        `the client wrote JSON that is not one JSON-RPC message object: ${preview(raw)}`,
        [seq],
      );
    }
    this.take(parsed, seq, raw);
  }

  /**
   * A JSON-RPC 2.0 batch from the client (ACP-V2-TRANS-11, as the agent side reads one): every entry
   * is read, checked and answered as a line of its own (an agent must accept batches); sending one
   * is reported under the informational tier, never as a failure.
   */
  private onBatch(entries: unknown[], lineSeq: number): void {
    if (entries.length === 0)
      return this.fail('ACP-ALL-RPC-01', 'the client wrote an empty JSON array: no JSON-RPC message', [lineSeq]);
    for (const entry of entries) {
      const seq = ++this.seq;
      const raw = JSON.stringify(entry);
      if (isObj(entry)) this.take(entry, seq, raw, lineSeq);
      else {
        this.record({ seq, dir: 'in', raw, batch: lineSeq });
        this.fail(
          'ACP-ALL-RPC-01',
          `the client wrote a batch entry that is not a JSON-RPC message object: ${preview(raw)}`,
          [lineSeq],
        );
      }
    }
    this.fail(
      'ACP-V2-TRANS-11',
      `the client sent a JSON-RPC batch (an array of ${entries.length}): read entry by entry, but peers should not send batches (agents must accept them)`,
      [lineSeq],
    );
  }

  /** One message from the client (a line, or an entry of the batch line `batch`): recorded, checked, answered -32601 unless a case takes it. */
  private take(msg: WireMessage, seq: number, raw: string, batch?: number): void {
    this.record({ seq, dir: 'in', raw, msg, ...(batch !== undefined ? { batch } : {}) });
    this.check(msg, seq);
    if (typeof msg.method === 'string' && msg.id !== undefined && !this.handled.has(msg.method)) {
      this.taken.add(seq);
      this.writeRaw(
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id,
          error: { code: -32601, message: `Method not found: ${msg.method}` },
        }),
      );
    }
  }

  private check(msg: WireMessage, seq: number): void {
    if (msg.jsonrpc !== '2.0')
      this.fail('ACP-ALL-RPC-01', `jsonrpc is ${JSON.stringify(msg.jsonrpc)}; it must be "2.0"`, [seq]);
    if (typeof msg.method === 'string') {
      const asked = at(msg.params, 'protocolVersion');
      if (msg.method === 'initialize' && typeof asked === 'number') this.asked = asked;
      if (msg.id === null && this.version === 2)
        this.fail('ACP-ALL-RPC-03', `${msg.method} request has id null, which v2 forbids`, [seq]);
      return;
    }
    const hasResult = 'result' in msg;
    const hasError = 'error' in msg;
    if (hasResult === hasError)
      this.fail(
        'ACP-ALL-RPC-01',
        `a response must carry exactly one of result and error; this one has ${hasResult ? 'both' : 'neither'}`,
        [seq],
      );
    if (hasError) {
      const e = msg.error;
      if (!isObj(e) || !Number.isInteger(e.code) || typeof e.message !== 'string')
        this.fail(
          'ACP-ALL-RPC-04',
          `error ${preview(JSON.stringify(e))} must be {code: integer, message: string, data?}`,
          [seq],
        );
    }
    const req = this.waiting.get(JSON.stringify(msg.id ?? null));
    if (!req) {
      const code = hasError ? at(msg.error, 'code') : undefined;
      // id null is how JSON-RPC answers a line whose id could not be read (e.g. a stray non-JSON line)
      if ((msg.id === null || msg.id === undefined) && (code === -32700 || code === -32600)) return;
      // an id that answers no request of ours is the capture validator's (see WireLog.onViolation)
      if (msg.id === null || msg.id === undefined)
        this.fail(
          'ACP-ALL-RPC-02',
          `the client sent a response without an id (${preview(JSON.stringify(msg))}): it answered a notification`,
          [seq],
        );
      return;
    }
  }
}

/** The client closed the connection while a case waited for it. */
export class ClientGone extends Error {}

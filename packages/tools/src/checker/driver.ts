import type { SchemaFailureContext } from '../captures/validate.js';
import { at, isObj } from '@acp-kit/protocol/internal';
import { startAgent, type AgentEnd, type InProcessLaunch, type LaunchSpec, type StartedAgent } from './launch.js';
import { hasMessage, isEnvelopeFailure, WaitTimeout, WireLog, type MessageLine } from './wire.js';

export { WaitTimeout } from './wire.js';

/** A JSON-RPC id as the wire carries it. */
export type WireId = string | number | null;

const isWireId = (v: unknown): v is WireId => v === null || typeof v === 'string' || typeof v === 'number';

/**
 * One parsed wire message: any JSON object. Every field is `unknown` because the checker must see
 * whatever the peer sent (a numeric method, a string error); readers narrow before they trust.
 */
export interface WireMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
  [key: string]: unknown;
}

/** What answers a request of the peer's: a result or an error. */
export interface WireAnswer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** One line of the transcript: what went to the agent (`out`) or came from it (`in`). */
export interface TranscriptLine {
  seq: number;
  dir: 'in' | 'out';
  raw: string;
  /** The parsed message, when the line was a JSON object (or is one entry of a batch line). */
  msg?: WireMessage;
  /**
   * Set on the entries of a JSON-RPC batch (an array line): the seq of the array line. Each entry
   * gets a transcript line of its own (its JSON as `raw`), right after the array line, so that an
   * answer inside a batch is matched like any other.
   */
  batch?: number;
}

/** A broken requirement seen on the wire, with the lines that show it. */
export interface Finding {
  id: string;
  message: string;
  seqs: number[];
}

const V2_MESSAGE_UPDATES = new Set([
  'user_message',
  'agent_message',
  'agent_thought',
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
]);

/**
 * Speaks raw newline-delimited JSON-RPC to one agent: a process (a {@link LaunchSpec}) or an
 * in-process agent on in-memory streams (an {@link InProcessLaunch}); the bytes are judged the
 * same way. Every received line is kept with its bytes and checked for framing (UTF-8, JSON, one
 * object per line) and the JSON-RPC envelope; the capture validator judges it against the official
 * schema of the version the initialize exchange agreed. What breaks a requirement becomes a
 * {@link Finding}. The driver does not judge behaviour: cases do, on top of it.
 */
export class AgentDriver extends WireLog {
  /** The agent's stderr: its last {@link STDERR_KEPT} characters (a shared process lives through many cases). */
  stderr = '';
  /** How many characters of stderr arrived in all (a case reads its own part with {@link stderrSince}). */
  stderrTotal = 0;
  /** The negotiated protocol version (set by the case once initialized); the v2-only checks use it. */
  version: 1 | 2 | undefined;
  /** Requests of ours that a client method the agent calls answers by default (permission etc.). */
  onRequest: (msg: WireMessage) => WireAnswer | undefined | Promise<WireAnswer | undefined> = () => undefined;

  private readonly agent: StartedAgent;
  private nextId = 1;
  private exitInfo: AgentEnd | undefined;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly announcedToolCalls = new Set<string>();
  /** Ids of the requests we sent inside a batch (an array line): an array answering them is the normal reply. */
  private readonly batchedIds = new Set<string>();

  constructor(launch: LaunchSpec | InProcessLaunch) {
    super('agent->editor', { attribute: attributeSchema });
    this.agent = startAgent(launch);
    void this.agent.ended.then((info) => {
      this.exitInfo = info;
      this.wake();
    });
    this.agent.stdin.on('error', () => undefined);
    this.agent.stdout.on('data', (d: Buffer) => this.onData(d));
    this.agent.stderr.setEncoding('utf8');
    this.agent.stderr.on('data', (d: string) => {
      this.stderrTotal += d.length;
      this.stderr = (this.stderr + d).slice(-STDERR_KEPT);
    });
  }

  /** The stderr that arrived after {@link stderrTotal} was `mark` (what is still kept of it). */
  stderrSince(mark: number): string {
    const n = this.stderrTotal - mark;
    return n <= 0 ? '' : this.stderr.slice(-Math.min(n, this.stderr.length));
  }

  /** The seq of the last line either way (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Why the agent could not be started, if it could not. */
  get spawnError(): Error | undefined {
    return this.agent.startError();
  }

  /** Whether the agent is still running (an in-process one: its connection is open). */
  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  /** How the process ended, once it has (an in-process agent has neither code nor signal). */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exitInfo && { code: this.exitInfo.code, signal: this.exitInfo.signal };
  }

  /** Writes a raw line (a newline is added unless `raw` is a Buffer). */
  writeRaw(raw: string | Buffer): number {
    const text = typeof raw === 'string' ? raw : raw.toString('utf8');
    const seq = this.recordOut(text.replace(/\n$/, ''));
    this.noteBatch(text, seq);
    if (this.alive) this.agent.stdin.write(typeof raw === 'string' ? `${raw}\n` : raw);
    return seq;
  }

  /**
   * Tracks the requests of a batch we write (at `seq`), so that their answers are matched and
   * checked, and an array answering them is not reported as a batch the agent started.
   */
  private noteBatch(text: string, seq: number): void {
    if (!text.trimStart().startsWith('[')) return;
    try {
      const parsed: unknown = JSON.parse(text);
      if (!Array.isArray(parsed)) return;
      for (const e of parsed) {
        if (!isObj(e) || !isWireId(e.id) || typeof e.method !== 'string') continue;
        this.batchedIds.add(JSON.stringify(e.id));
        this.track(e.id, e.method, seq);
      }
    } catch {
      /* deliberately malformed input */
    }
  }

  /** Sends a request with a fresh numeric id (or `id`); returns the id used and its seq. */
  send(method: string, params?: unknown, id: WireId = this.nextId++): { id: WireId; seq: number } {
    const msg: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) msg.params = params;
    // tracked after the write: nothing is delivered inside it (a pipe, or launch.ts's deferred crossing)
    const seq = this.writeRaw(JSON.stringify(msg));
    this.track(id, method, seq);
    return { id, seq };
  }

  /**
   * Whether a line that is not JSON, arriving while we wait for an answer, ends the wait at once
   * (the handshake: such an agent does not speak ACP on stdout, and waiting out the timeout tells nothing more).
   */
  stopOnGarbage = false;

  /** Sends a request and waits for its response. */
  async request(method: string, params: unknown, ms: number, id?: WireId): Promise<WireMessage & { seq: number }> {
    const sent = this.send(method, params, id);
    const what = `the response to ${method} (id ${JSON.stringify(sent.id)})`;
    if (!this.stopOnGarbage) return this.answerTo(sent.id, sent.seq, ms, what);
    const key = JSON.stringify(sent.id);
    const started = Date.now();
    // an array line is a batch (its entries follow as lines of their own), not garbage
    const garbage = (l: TranscriptLine) =>
      l.msg === undefined && l.batch === undefined && !l.raw.trimStart().startsWith('[');
    const first = await this.waitFor(
      (l) =>
        l.dir === 'in' &&
        (garbage(l) || (l.msg !== undefined && l.msg.method === undefined && JSON.stringify(l.msg.id) === key)),
      ms,
      what,
      0,
    );
    if (first.msg !== undefined) return { ...first.msg, seq: first.seq };
    // a stray log line may still be followed by the answer: a short grace, not the whole timeout
    try {
      return await this.answerTo(
        sent.id,
        sent.seq,
        Math.max(0, Math.min(GARBAGE_GRACE_MS, ms - (Date.now() - started))),
        what,
      );
    } catch (e) {
      if (!(e instanceof WaitTimeout)) throw e;
      throw new Error(
        `${what} did not arrive: the agent wrote ${preview(first.raw)} on stdout, which is not an ACP message (does it speak ACP over stdio?)`,
        { cause: e },
      );
    }
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): number {
    const msg: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) msg.params = params;
    return this.writeRaw(JSON.stringify(msg));
  }

  /** The method of the request of ours that `id` answers, if any is (or was) in flight. */
  methodOf(id: unknown): string | undefined {
    return this.waiting.get(JSON.stringify(id ?? null))?.method;
  }

  protected gone(what: string): Error | undefined {
    return this.alive ? undefined : new Error(`${what} did not arrive: the agent exited (${this.describeExit()})`);
  }

  /**
   * Proves that the agent has handled everything sent so far: a request for a method no agent
   * has (`_acp_kit_check/ping`) must come back, so whatever the agent sent before that answer is in
   * the transcript. Returns the seq of the answer.
   */
  async roundTrip(ms: number): Promise<number> {
    const r = await this.request('_acp_kit_check/ping', {}, ms);
    return r.seq;
  }

  /** Messages from the agent after `after` (and up to `until`, inclusive). */
  received(after = 0, until = Number.POSITIVE_INFINITY): Array<WireMessage & { seq: number }> {
    return this.transcript
      .filter((l): l is MessageLine => l.dir === 'in' && hasMessage(l) && l.seq > after && l.seq <= until)
      .map((l) => ({ ...l.msg, seq: l.seq }));
  }

  /** Closes the agent's input (stdin) and waits up to `ms` for it to end; true when it did. */
  async closeStdin(ms: number): Promise<boolean> {
    this.agent.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => {
      timer = setTimeout(() => r(false), ms);
    });
    try {
      return await Promise.race([this.agent.ended.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the agent (a process: with its group) for good. */
  async dispose(): Promise<void> {
    if (this.alive) this.agent.kill();
    await this.agent.settled;
  }

  describeExit(): string {
    if (this.spawnError) return `could not start: ${this.spawnError.message}`;
    const e = this.exitInfo;
    if (!e) return 'still running';
    if (e.inProcess) return e.inProcess;
    return e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`;
  }

  protected onLine(bytes: Buffer): void {
    const seq = ++this.seq;
    let raw: string;
    try {
      raw = this.decoder.decode(bytes);
    } catch {
      raw = bytes.toString('utf8');
      this.record({ seq, dir: 'in', raw });
      this.fail('ACP-ALL-TRANS-01', 'the agent wrote a line on stdout that is not valid UTF-8', [seq]);
      return;
    }
    const text = raw.replace(/\r$/, '');
    let parsed: unknown;
    let isJson = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      isJson = false;
    }
    if (!isJson) {
      this.record({ seq, dir: 'in', raw });
      const prev = this.transcript.filter((l) => l.dir === 'in').at(-2);
      // a message split over lines: this line or the one before starts a JSON value that does not end
      if (/^\s*[{[]/.test(text) || (prev && prev.msg === undefined && /^\s*[{[]/.test(prev.raw))) {
        this.fail(
          'ACP-ALL-TRANS-04',
          `the agent wrote a line that is not a whole JSON message (a message split over lines?): ${preview(raw)}`,
          [seq],
        );
      } else if (text.trim() !== '') {
        this.fail('ACP-ALL-TRANS-05', `the agent wrote a line on stdout that is not an ACP message: ${preview(raw)}`, [
          seq,
        ]);
      } else {
        this.fail('ACP-ALL-TRANS-04', 'the agent wrote an empty line on stdout', [seq]);
      }
      return;
    }
    if (Array.isArray(parsed)) {
      this.record({ seq, dir: 'in', raw }, false);
      this.onBatch(parsed, seq);
      return;
    }
    if (!isObj(parsed)) {
      this.record({ seq, dir: 'in', raw });
      this.fail('ACP-ALL-RPC-01', `the agent wrote JSON that is not a JSON-RPC message object: ${preview(raw)}`, [seq]);
      return;
    }
    const msg: WireMessage = parsed;
    this.record({ seq, dir: 'in', raw, msg });
    this.checkMessage(msg, seq);
    if (typeof msg.method === 'string' && msg.id !== undefined) void this.answer(msg, msg.method);
  }

  /**
   * A JSON-RPC 2.0 batch from the agent (ACP-V2-TRANS-11): every entry is read, checked and, when it
   * is a request, answered, as if it had come on a line of its own; a client must accept batches.
   * Agents should not send them, so a batch that is not the answer to a batch of ours is reported
   * under the informational tier, never as a failure (the batch case judges the answer to its probe).
   */
  private onBatch(entries: unknown[], lineSeq: number): void {
    if (entries.length === 0)
      return this.fail('ACP-ALL-RPC-01', 'the agent wrote an empty JSON array: no JSON-RPC message', [lineSeq]);
    let answersOurBatch = true;
    for (const entry of entries) {
      const seq = ++this.seq;
      const raw = JSON.stringify(entry);
      if (!isObj(entry)) {
        this.record({ seq, dir: 'in', raw, batch: lineSeq });
        this.fail(
          'ACP-ALL-RPC-01',
          `the agent wrote a batch entry that is not a JSON-RPC message object: ${preview(raw)}`,
          [lineSeq],
        );
        answersOurBatch = false;
        continue;
      }
      const msg: WireMessage = entry;
      this.record({ seq, dir: 'in', raw, msg, batch: lineSeq });
      if (msg.method !== undefined || !this.batchedIds.has(JSON.stringify(msg.id ?? null))) answersOurBatch = false;
      this.checkMessage(msg, seq);
      if (typeof msg.method === 'string' && msg.id !== undefined) void this.answer(msg, msg.method);
    }
    if (!answersOurBatch) {
      this.fail(
        'ACP-V2-TRANS-11',
        `the agent sent a JSON-RPC batch (an array of ${entries.length}) that does not answer a batch of the checker's: read entry by entry, but agents should not send batches (clients must accept them)`,
        [lineSeq],
      );
    }
  }

  private checkMessage(msg: WireMessage, seq: number): void {
    if (msg.jsonrpc !== '2.0')
      this.fail('ACP-ALL-RPC-01', `jsonrpc is ${JSON.stringify(msg.jsonrpc)}; it must be "2.0"`, [seq]);
    if (typeof msg.method === 'string') {
      if (msg.id === null && this.version === 2)
        this.fail('ACP-ALL-RPC-03', `${msg.method} request has id null, which v2 forbids`, [seq]);
      if (msg.method === 'session/update') this.checkToolTitle(msg);
      return;
    }
    const key = JSON.stringify(msg.id ?? null);
    const req = this.waiting.get(key);
    const hasResult = 'result' in msg;
    const hasError = 'error' in msg;
    if (hasResult === hasError) {
      this.fail(
        'ACP-ALL-RPC-01',
        `a response must carry exactly one of result and error; this one has ${hasResult ? 'both' : 'neither'}`,
        [seq],
      );
    }
    if (hasError) {
      const e = msg.error;
      if (!isObj(e) || !Number.isInteger(e.code) || typeof e.message !== 'string' || e.message.trim() === '') {
        this.fail(
          'ACP-ALL-RPC-04',
          `error ${preview(JSON.stringify(e))} must be {code: integer, message: non-empty string, data?}`,
          [seq],
        );
      }
    }
    if (!req) {
      const code = hasError ? at(msg, 'error', 'code') : undefined;
      // id null is how JSON-RPC answers a line whose id could not be read (parse error, invalid request)
      if ((msg.id === null || msg.id === undefined) && (code === -32700 || code === -32600)) return;
      // an id that answers no request of ours is the capture validator's (see WireLog.onViolation)
      if (msg.id === null || msg.id === undefined)
        this.fail(
          'ACP-ALL-RPC-02',
          `the agent sent a response without an id (${preview(JSON.stringify(msg))}): it answered a notification`,
          [seq],
        );
      return;
    }
  }

  /** ACP-V2-TOOL-02: the first tool_call_update of a tool call carries its title (no schema can say "first"). */
  private checkToolTitle(msg: WireMessage): void {
    if (this.version !== 2) return;
    const update = at(msg.params, 'update');
    const toolCallId = at(update, 'toolCallId');
    if (at(update, 'sessionUpdate') !== 'tool_call_update' || typeof toolCallId !== 'string') return;
    const id = `${String(at(msg.params, 'sessionId'))}\u0000${toolCallId}`;
    if (this.announcedToolCalls.has(id)) return;
    this.announcedToolCalls.add(id);
    if (typeof at(update, 'title') !== 'string')
      this.fail(
        'ACP-V2-TOOL-02',
        `the first tool_call_update of tool call ${JSON.stringify(toolCallId)} has no title`,
        [this.seqOf(msg)],
      );
  }

  private async answer(msg: WireMessage, method: string): Promise<void> {
    let reply: WireAnswer | undefined;
    try {
      reply = await this.onRequest(msg);
    } catch {
      reply = undefined;
    }
    if (reply === undefined) {
      // the checker advertises no client capabilities (no fs, terminal or elicitation), so a call to
      // one of them breaks ACP-ALL-CAP-01 (`elicitation/complete` is a notification: not answered here)
      if (/^(fs|terminal|elicitation)\//.test(method))
        this.fail('ACP-ALL-CAP-01', `the agent called ${method}, which the checker did not advertise`, [
          this.seqOf(msg),
        ]);
      reply = { error: { code: -32601, message: `Method not found: ${method}` } };
    }
    if (!this.alive) return;
    this.writeRaw(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...reply }));
  }

  private seqOf(msg: WireMessage): number {
    return this.transcript.find((l) => l.msg === msg)?.seq ?? this.seq;
  }
}

/**
 * The requirement a schema failure of the agent's breaks: the most specific one, else the
 * schema of the version. The JSON-RPC envelope (`jsonrpc`, `error`, a non-string method, a line
 * that is no message) is judged by the driver itself, with the JSON-RPC requirements.
 */
function attributeSchema({ version: v, method, kind, failure: f }: SchemaFailureContext): string | undefined {
  if (isEnvelopeFailure(f)) return undefined;
  if (method === 'initialize' && /capabilities|Capabilities/.test(f.path))
    return v === 2 ? 'ACP-V2-CAP-01' : 'ACP-V1-CAP-02';
  if (method === 'initialize' && v === 2 && /(^|\.)info/.test(f.path)) return 'ACP-V2-INIT-01';
  if (kind && V2_MESSAGE_UPDATES.has(kind) && v === 2 && /messageId/.test(`${f.path} ${f.message}`))
    return 'ACP-V2-MSG-01';
  if (kind === 'plan_update' && /planId|\.type|plan$/.test(`${f.path} ${f.message}`)) return 'ACP-V2-PLAN-01';
  if (kind === 'plan') return 'ACP-V1-PLAN-01';
  if (kind === 'tool_call' && v === 1) return 'ACP-V1-TOOL-01';
  if (method === 'session/request_permission') return v === 2 ? 'ACP-V2-PERM-01' : 'ACP-V1-PERM-01';
  return `schema/v${v}`;
}

/** How much of an agent's stderr is kept (failure reports quote its last 2000 characters). */
const STDERR_KEPT = 64_000;

/** How long the handshake waits for its answer after a line that is not JSON (see {@link AgentDriver.stopOnGarbage}). */
const GARBAGE_GRACE_MS = 1500;

/** A line shortened for a message. */
export function preview(raw: string, max = 120): string {
  return JSON.stringify(raw.length > max ? `${raw.slice(0, max)}…` : raw);
}

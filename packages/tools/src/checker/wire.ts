import { isObj } from '@acp-kit/protocol/internal';
import { decodeFrame, type CaptureFrame, type FrameDirection } from '../captures/capture.js';
import {
  CaptureValidator,
  type CaptureValidatorOptions,
  type Violation,
  type ViolationRule,
} from '../captures/validate.js';
import type { ValidationFailure } from '@acp-kit/protocol';
import type { Finding, TranscriptLine, WireId, WireMessage } from './driver.js';

/** Raised when the peer did not do something in time; the case fails the requirement it names. */
export class WaitTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not arrive within ${ms} ms`);
  }
}

/**
 * Whether a schema failure is about the JSON-RPC envelope (`jsonrpc`, `error`, a non-string
 * method, a line that is no message object): the checker judges those itself, under the
 * JSON-RPC requirements (RPC-01, RPC-04), not as schema failures.
 */
export const isEnvelopeFailure = (f: ValidationFailure): boolean =>
  f.path === 'jsonrpc' || f.path === 'error' || f.path === 'method' || f.path === 'the message';

/** A transcript line that holds a parsed message. */
export type MessageLine = TranscriptLine & { msg: WireMessage };

/** Whether `l` holds a parsed message. */
export const hasMessage = (l: TranscriptLine): l is MessageLine => l.msg !== undefined;

/** Matches a response from the peer to the request with id `id` (compared as JSON: ids must be echoed exactly). */
export const answering =
  (id: unknown) =>
  (l: TranscriptLine): l is MessageLine =>
    l.dir === 'in' && hasMessage(l) && l.msg.method === undefined && JSON.stringify(l.msg.id) === JSON.stringify(id);

/**
 * The checker's end of one newline-delimited JSON-RPC conversation, whichever side it plays: the
 * transcript of every line both ways, the findings, and waiting for a line. The agent driver and
 * the scripted agent of `check client` differ only in how lines travel and what they must obey.
 */
export abstract class WireLog {
  readonly transcript: TranscriptLine[] = [];
  readonly findings: Finding[] = [];
  /**
   * What the capture validator (the one engine of the passive rules, the same that judges a
   * capture) found in this transcript, both directions, in order. Cases read the rules they
   * exercise from here ({@link violationsOf}) instead of judging them with code of their own.
   */
  readonly violations: Violation[] = [];
  private readonly rules: CaptureValidator;

  protected seq = 0;
  /** Our requests in flight (and answered), by JSON of their id. */
  protected readonly waiting = new Map<string, { method: string; seq: number }>();
  private pendingBytes = Buffer.alloc(0);
  private listeners: Array<() => void> = [];

  /**
   * `inbound`: the capture direction of the lines this end receives (the peer under test writes
   * them); `rules`: the capture validator's settings (how the checker names schema failures).
   */
  constructor(
    private readonly inbound: FrameDirection,
    rules: CaptureValidatorOptions = {},
  ) {
    this.rules = new CaptureValidator(rules);
  }

  /**
   * Puts a line into the transcript and runs the capture validator over it. `judged` is false for
   * a received array line: its entries follow as lines of their own and are judged one by one,
   * so that each violation names the seq of its entry.
   */
  protected record(line: TranscriptLine, judged = true): void {
    this.transcript.push(line);
    if (!judged) return;
    const d = decodeFrame(line.raw);
    const frame: CaptureFrame = {
      seq: line.seq,
      t: 0,
      dir: line.dir === 'in' ? this.inbound : this.inbound === 'agent->editor' ? 'editor->agent' : 'agent->editor',
      raw: line.raw,
      kind: d.kind,
    };
    if (d.method !== undefined) frame.method = d.method;
    if (d.id !== undefined) frame.id = d.id;
    const found = this.rules.push(frame, line.msg);
    this.violations.push(...found);
    if (line.dir === 'in') for (const v of found) this.onViolation(v, line);
  }

  /**
   * A violation the peer committed, as the line that shows it arrives: the rules every line is
   * judged by become findings (the schema, named by the `attribute` option; an answer to no
   * request of ours, ACP-ALL-RPC-03). An answer without an id is the subclass's (ACP-ALL-RPC-02).
   */
  private onViolation(v: Violation, line: TranscriptLine): void {
    if (v.rule === 'schema' || v.rule.startsWith('elicitation-')) this.fail(v.requirement, v.message, v.seqs);
    const id = line.msg?.id;
    if (v.rule === 'response-to-unknown-id' && id !== null && id !== undefined)
      this.fail('ACP-ALL-RPC-03', v.message, v.seqs);
  }

  /**
   * Violations of `rule` that the peer committed: found on a line it sent (the last seq of the
   * violation) after seq `after` and up to `until`, inclusive.
   */
  violationsOf(rule: ViolationRule, after: number, until = Number.POSITIVE_INFINITY): Violation[] {
    const received = new Set(
      this.transcript.filter((l) => l.dir === 'in' && l.seq > after && l.seq <= until).map((l) => l.seq),
    );
    return this.violations.filter((v) => v.rule === rule && received.has(v.seqs[v.seqs.length - 1] ?? 0));
  }

  /** Records a finding. */
  fail(id: string, message: string, seqs: number[]): void {
    this.findings.push({ id, message, seqs });
  }

  /**
   * Waits for the first line after seq `after` matching `pred`. Throws {@link WaitTimeout} after
   * `ms`, or the error of {@link gone} when the other side ends before a match.
   */
  async waitFor<T extends TranscriptLine>(
    pred: (l: TranscriptLine) => l is T,
    ms: number,
    what: string,
    after?: number,
  ): Promise<T>;
  async waitFor(
    pred: (l: TranscriptLine) => boolean,
    ms: number,
    what: string,
    after?: number,
  ): Promise<TranscriptLine>;
  async waitFor(pred: (l: TranscriptLine) => boolean, ms: number, what: string, after = 0): Promise<TranscriptLine> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.transcript.find((l) => l.seq > after && pred(l));
      if (hit) return hit;
      const gone = this.gone(what);
      if (gone) throw gone;
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeout(what, ms);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.listeners.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The error {@link waitFor} throws once no more lines can come; undefined while they can. */
  protected abstract gone(what: string): Error | undefined;

  /** Handles one received line (its bytes, without the newline). */
  protected abstract onLine(bytes: Buffer): void;

  /** Puts a line we send into the transcript (parsed when it is a JSON object); returns its seq. */
  protected recordOut(text: string): number {
    const seq = ++this.seq;
    let msg: WireMessage | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObj(parsed)) msg = parsed;
    } catch {
      /* deliberately malformed input */
    }
    this.record({ seq, dir: 'out', raw: text, msg });
    return seq;
  }

  /** Remembers a request of ours, so that its answer can be matched and checked. */
  protected track(id: WireId, method: string, seq: number): void {
    this.waiting.set(JSON.stringify(id), { method, seq });
  }

  /** Waits for the answer to our request `id` (sent at seq `after`), matched by the exact id. */
  protected async answerTo(
    id: WireId,
    after: number,
    ms: number,
    what: string,
  ): Promise<WireMessage & { seq: number }> {
    const line = await this.waitFor(answering(id), ms, what, after);
    return { ...line.msg, seq: line.seq };
  }

  /** Splits received bytes into lines; a partial line waits for the rest. */
  protected onData(d: Buffer): void {
    this.pendingBytes = Buffer.concat([this.pendingBytes, d]);
    let i: number;
    while ((i = this.pendingBytes.indexOf(0x0a)) >= 0) {
      const bytes = this.pendingBytes.subarray(0, i);
      this.pendingBytes = this.pendingBytes.subarray(i + 1);
      this.onLine(bytes);
    }
    this.wake();
  }

  /** Lets every {@link waitFor} look again. */
  protected wake(): void {
    const l = this.listeners;
    this.listeners = [];
    for (const f of l) f();
  }
}

import type { CaptureFrame, FrameDirection } from './capture.js';
import { at, isObj, numberAt, stringAt } from '@acp-kit/protocol/internal';
import { RequestPairer, summarizeLatencies, type LatencySummary } from './latency.js';

/** Traffic of one method in one direction. */
export interface MethodStats {
  method: string;
  /** The direction its requests/notifications travelled. */
  dir: FrameDirection;
  requests: number;
  notifications: number;
  /** Requests answered with a result. */
  responses: number;
  /** Requests answered with an error. */
  errors: number;
  /** Requests never answered by the end of the capture. */
  unanswered: number;
  /** Request to response (or error) time, ms; `null` for notifications or when nothing was answered. */
  latency: LatencySummary | null;
  /** Bytes of its requests/notifications and of their answers (each line counts its `\n`). */
  bytes: number;
}

/** Error responses with one code. */
export interface ErrorCodeStats {
  code: number | null;
  count: number;
  /** The message of the first error with this code. */
  message: string;
  /** The methods whose requests got it, sorted. */
  methods: string[];
}

/** One prompt turn, from the `session/prompt` request to its end. */
export interface TurnStats {
  sessionId: string | null;
  /** seq and time of the `session/prompt` request. */
  promptSeq: number;
  t: number;
  /** Request to the first agent message or thought chunk of the session during the turn, ms. */
  timeToFirstChunkMs: number | null;
  /** v1: prompt request to its response; v2: prompt request to the `idle` state_update that ends the work, ms. `null` when the capture ends first. */
  durationMs: number | null;
  /** The seq of the frame that ended the turn. */
  endSeq: number | null;
  /** The stop reason (v1: prompt result; v2: idle update); `null` when none was given or the turn did not end. */
  stopReason: string | null;
  /** Set when the prompt request was answered with an error. */
  error?: { code: number | null; message: string };
}

/** What {@link captureStats} reports. */
export interface CaptureStats {
  frames: number;
  /** Time of the last frame minus the first, ms. */
  durationMs: number;
  /** Negotiated protocol version (initialize response), `null` when the capture has none. */
  protocolVersion: number | null;
  /** Bytes per direction (each line counts its `\n`). */
  bytes: Record<FrameDirection, number>;
  /** Lines that are not JSON-RPC messages. */
  invalid: number;
  /** Responses that answer no request in the capture. */
  unmatchedResponses: number;
  /** Per method and direction, sorted by method then direction. */
  methods: MethodStats[];
  /** Error responses by code, sorted by code. */
  errors: ErrorCodeStats[];
  /** `session/update` kinds and how often each came. */
  updates: Record<string, number>;
  /** Prompt turns in the order they started. */
  turns: TurnStats[];
  /** How many turns ended with each stop reason (`error` responses count as `"(error response)"`, turns still open as `"(unfinished)"`). */
  stopReasons: Record<string, number>;
}

/** A {@link MethodStats} being counted: latencies collected, summarized (and `unanswered` counted) at the end. */
interface MethodAcc extends Omit<MethodStats, 'latency' | 'unanswered'> {
  latencies: number[];
}

interface OpenTurn {
  stats: TurnStats;
  /** v2: work was running after the prompt arrived, so the next idle ends this turn. */
  sawRunning: boolean;
  /** v2: the prompt was acknowledged; the turn now waits for idle. */
  acknowledged: boolean;
}

const CHUNK_KINDS = new Set(['agent_message_chunk', 'agent_thought_chunk', 'agent_message', 'agent_thought']);

const lineBytes = (raw: string): number => Buffer.byteLength(raw, 'utf8') + 1;
const round = (n: number): number => Math.round(n * 1000) / 1000;

function parse(raw: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Streaming statistics of a capture: feed frames in order with {@link push}, read the result with
 * {@link result}. Memory grows with the number of requests and turns, not with notifications, so a
 * turn that streams 100k chunks costs nothing per chunk. Only frames whose content matters
 * (`session/update`, prompt answers, errors, the initialize answer) are parsed.
 */
export class CaptureStatsCollector {
  private frames = 0;
  private firstT: number | undefined;
  private lastT = 0;
  private protocolVersion: number | null = null;
  private readonly bytes: Record<FrameDirection, number> = { 'editor->agent': 0, 'agent->editor': 0 };
  private invalid = 0;
  private unmatched = 0;
  private readonly methods = new Map<string, MethodAcc>();
  private readonly errorCodes = new Map<
    string,
    { code: number | null; count: number; message: string; methods: Set<string> }
  >();
  private readonly updates = new Map<string, number>();
  private readonly pairer = new RequestPairer();
  private readonly turns: TurnStats[] = [];
  /** Open turns by session id (in start order), and by prompt request id. */
  private readonly open = new Map<string, OpenTurn[]>();
  private readonly byPromptId = new Map<string, OpenTurn>();
  private readonly running = new Set<string>();

  private method(dir: FrameDirection, method: string): MethodAcc {
    const key = `${method}\u0000${dir}`;
    let m = this.methods.get(key);
    if (!m) {
      m = { method, dir, requests: 0, notifications: 0, responses: 0, errors: 0, latencies: [], bytes: 0 };
      this.methods.set(key, m);
    }
    return m;
  }

  /** Feeds the next frame of the capture. */
  push(frame: CaptureFrame): void {
    this.frames++;
    this.firstT ??= frame.t;
    this.lastT = frame.t;
    const size = lineBytes(frame.raw);
    this.bytes[frame.dir] += size;
    switch (frame.kind) {
      case 'invalid':
        this.invalid++;
        return;
      case 'request':
      case 'notification': {
        const m = this.method(frame.dir, frame.method ?? '');
        m.bytes += size;
        if (frame.kind === 'request') {
          m.requests++;
          this.pairer.push(frame);
        } else m.notifications++;
        if (frame.method === 'session/prompt' && frame.dir === 'editor->agent') this.onPrompt(frame);
        else if (frame.method === 'session/update' && frame.dir === 'agent->editor') this.onUpdate(frame);
        return;
      }
      default: {
        const answered = this.pairer.push(frame);
        if (!answered) {
          this.unmatched++;
          return;
        }
        const m = this.method(answered.request.dir, answered.request.method);
        m.bytes += size;
        m.latencies.push(answered.latencyMs);
        const needsBody =
          frame.kind === 'error' ||
          answered.request.method === 'session/prompt' ||
          answered.request.method === 'initialize';
        const body = needsBody ? parse(frame.raw) : undefined;
        if (frame.kind === 'error') {
          m.errors++;
          const code = numberAt(body, 'error', 'code') ?? null;
          const key = String(code);
          let acc = this.errorCodes.get(key);
          if (!acc) {
            acc = { code, count: 0, message: stringAt(body, 'error', 'message') ?? '', methods: new Set() };
            this.errorCodes.set(key, acc);
          }
          acc.count++;
          acc.methods.add(answered.request.method);
        } else m.responses++;
        if (answered.request.method === 'initialize' && frame.kind === 'response') {
          const pv = numberAt(body, 'result', 'protocolVersion');
          if (pv !== undefined) this.protocolVersion = pv;
        }
        if (answered.request.method === 'session/prompt') this.onPromptAnswer(frame, body, answered.request.id);
      }
    }
  }

  private onPrompt(frame: CaptureFrame): void {
    const sid = stringAt(parse(frame.raw), 'params', 'sessionId') ?? null;
    const stats: TurnStats = {
      sessionId: sid,
      promptSeq: frame.seq,
      t: frame.t,
      timeToFirstChunkMs: null,
      durationMs: null,
      endSeq: null,
      stopReason: null,
    };
    this.turns.push(stats);
    // a prompt sent while work runs joins that work: its idle ends this turn too
    const turn: OpenTurn = { stats, sawRunning: sid !== null && this.running.has(sid), acknowledged: false };
    const key = sid ?? '';
    const list = this.open.get(key) ?? [];
    list.push(turn);
    this.open.set(key, list);
    this.byPromptId.set(JSON.stringify(frame.id ?? null), turn);
  }

  private end(turn: OpenTurn, frame: CaptureFrame, stopReason: string | null): void {
    turn.stats.durationMs = round(frame.t - turn.stats.t);
    turn.stats.endSeq = frame.seq;
    turn.stats.stopReason = stopReason;
    const key = turn.stats.sessionId ?? '';
    const list = this.open.get(key);
    if (list) {
      const i = list.indexOf(turn);
      if (i !== -1) list.splice(i, 1);
      if (list.length === 0) this.open.delete(key);
    }
  }

  private onPromptAnswer(frame: CaptureFrame, body: Record<string, unknown> | undefined, id: unknown): void {
    const key = JSON.stringify(id ?? null);
    const turn = this.byPromptId.get(key);
    if (!turn) return;
    this.byPromptId.delete(key);
    if (frame.kind === 'error') {
      turn.stats.error = {
        code: numberAt(body, 'error', 'code') ?? null,
        message: stringAt(body, 'error', 'message') ?? '',
      };
      this.end(turn, frame, null);
      return;
    }
    const stopReason = at(body, 'result', 'stopReason');
    // v1 answers at the end of the turn with its stop reason; v2 only acknowledges and ends at idle
    if (typeof stopReason === 'string') this.end(turn, frame, stopReason);
    else turn.acknowledged = true;
  }

  private onUpdate(frame: CaptureFrame): void {
    const params = at(parse(frame.raw), 'params');
    const update = at(params, 'update');
    const kind = stringAt(update, 'sessionUpdate') ?? '(none)';
    this.updates.set(kind, (this.updates.get(kind) ?? 0) + 1);
    const sid = stringAt(params, 'sessionId') ?? null;
    const list = this.open.get(sid ?? '');
    if (CHUNK_KINDS.has(kind)) {
      const turn = list?.find((t) => t.stats.timeToFirstChunkMs === null);
      if (turn) turn.stats.timeToFirstChunkMs = round(frame.t - turn.stats.t);
      return;
    }
    if (kind !== 'state_update' || sid === null) return;
    const state = at(update, 'state');
    if (state === 'idle') {
      this.running.delete(sid);
      const stop = at(update, 'stopReason');
      for (const turn of [...(list ?? [])])
        if (turn.sawRunning) this.end(turn, frame, typeof stop === 'string' ? stop : null);
    } else if (typeof state === 'string') {
      this.running.add(sid);
      for (const turn of list ?? []) turn.sawRunning = true;
    }
  }

  /** The statistics of the frames pushed so far (requests in flight count as unanswered). */
  result(): CaptureStats {
    const unanswered = new Map<string, number>();
    for (const p of this.pairer.unanswered())
      unanswered.set(`${p.method}\u0000${p.dir}`, (unanswered.get(`${p.method}\u0000${p.dir}`) ?? 0) + 1);
    const methods: MethodStats[] = [...this.methods.entries()]
      .map(([key, m]) => ({
        method: m.method,
        dir: m.dir,
        requests: m.requests,
        notifications: m.notifications,
        responses: m.responses,
        errors: m.errors,
        unanswered: unanswered.get(key) ?? 0,
        latency: summarizeLatencies(m.latencies) ?? null,
        bytes: m.bytes,
      }))
      .sort((a, b) => (a.method === b.method ? a.dir.localeCompare(b.dir) : a.method < b.method ? -1 : 1));
    const errors = [...this.errorCodes.values()]
      .map((e) => ({ code: e.code, count: e.count, message: e.message, methods: [...e.methods].sort() }))
      .sort((a, b) => (a.code ?? Number.MAX_SAFE_INTEGER) - (b.code ?? Number.MAX_SAFE_INTEGER));
    const stopReasons: Record<string, number> = {};
    for (const t of this.turns) {
      const r = t.error ? '(error response)' : t.endSeq === null ? '(unfinished)' : (t.stopReason ?? '(none)');
      stopReasons[r] = (stopReasons[r] ?? 0) + 1;
    }
    return {
      frames: this.frames,
      durationMs: round(this.lastT - (this.firstT ?? this.lastT)),
      protocolVersion: this.protocolVersion,
      bytes: { ...this.bytes },
      invalid: this.invalid,
      unmatchedResponses: this.unmatched,
      methods,
      errors,
      updates: Object.fromEntries([...this.updates.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
      turns: this.turns.map((t) => ({ ...t })),
      stopReasons,
    };
  }
}

/**
 * Statistics of a capture's frames (an array, or `openCapture(path)` to stream a file): per method
 * counts, latency p50/p99/max, bytes, errors by code, and per turn the time to the first chunk,
 * the duration and the stop reason.
 */
export async function captureStats(
  frames: Iterable<CaptureFrame> | AsyncIterable<CaptureFrame>,
): Promise<CaptureStats> {
  const c = new CaptureStatsCollector();
  for await (const f of frames) c.push(f);
  return c.result();
}

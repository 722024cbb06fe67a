import type { Readable, Writable } from 'node:stream';
import { at } from '@acp-kit/protocol/internal';
import { decodeFrame, type DecodedFrame, type FrameId } from '../../captures/capture.js';
import { key, RequestIdMap, ValueMap } from './id-map.js';
import { LineQueue, writeLine } from './lines.js';
import { ReplaySchedule } from './schedule.js';
import { describeFrame, type ReplayScript, type ScriptFrame } from './script.js';

/**
 * JSON-RPC error code replay answers a live request with when it is not the one the recording
 * expects next (in the implementation-defined server error range -32099..-32000).
 */
export const REPLAY_MISMATCH_CODE = -32050;

/** Options of {@link replayAsAgent}. */
export interface ReplayAgentOptions {
  /** The recording (see {@link loadReplayScript}). */
  script: ReplayScript;
  /** The live client's messages (default: this process's stdin). */
  input?: Readable;
  /** Where the recorded agent's frames go (default: this process's stdout). */
  output?: Writable;
  /**
   * Playback speed of the recorded gaps between frames: 1 = as recorded (default), 2 = twice as
   * fast, `Infinity` (or `fast`) = no waiting.
   */
  speed?: number;
  /** Send every frame as soon as it is due in order, without the recorded gaps. */
  fast?: boolean;
  /** Replay's own notes (mismatches, the end); never written to `output`. */
  log?: (line: string) => void;
}

/** Where and how a live peer did something other than the recording. */
export interface ReplayDivergence {
  /** The recorded frame replay was at (its `seq`). */
  seq: number;
  /** What the recording expected there, e.g. `session/prompt request`. */
  expected: string;
  /** What arrived instead (or `connection closed`). */
  got: string;
  message: string;
}

/** How a replay ended. */
export interface ReplayAgentResult {
  /** True when every recorded frame was played (the client did everything the recording did). */
  completed: boolean;
  /** Live requests/notifications that did not match, and an early end. */
  divergences: ReplayDivergence[];
  /** Recorded agent frames written to the client. */
  framesSent: number;
}

interface Live {
  raw: string;
  d: DecodedFrame;
}

/**
 * Plays the agent side of a capture to a live client: each live request or notification stands
 * for the first recorded client frame of the same method still open (by method and order, so a
 * client that waits for each answer replays a recording whose client pipelined several requests,
 * and the reverse), and every recorded agent frame is played as soon as what it waits for
 * happened ({@link ReplaySchedule}): an answer goes under the live request's id once that
 * request arrived; other agent frames once everything the client sent before them in the
 * recording did. Recorded agent requests keep their ids unless one is still in flight, and the
 * client's answers are matched back by id. Session, message, tool call and terminal ids stay as
 * recorded unless the live client chose others (e.g. the `sessionId` of a `session/load`, a v1
 * `terminalId`), which are then rewritten consistently; a different live `cwd` maps recorded
 * paths under it. A request the recording has no open frame for gets a
 * {@link REPLAY_MISMATCH_CODE} error naming the recorded frame replay expected next. Resolves
 * when the client closes its side.
 */
export async function replayAsAgent(options: ReplayAgentOptions): Promise<ReplayAgentResult> {
  return new AgentPlayback(options).run();
}

/** One {@link replayAsAgent} run: the live connection, the schedule and the id maps. */
class AgentPlayback {
  private readonly output: Writable;
  private readonly log: (line: string) => void;
  private readonly speed: number;
  private readonly frames: ReplayScript['frames'];
  private readonly live: LineQueue;
  private readonly schedule: ReplaySchedule;
  private readonly values = new ValueMap();
  /** recorded client request index -> live id */
  private readonly editorIds = new Map<number, FrameId>();
  private readonly agentIds = new RequestIdMap();
  /** live id of a replayed agent request -> its recorded id */
  private readonly recordedIdOf = new Map<string, FrameId>();
  private readonly divergences: ReplayDivergence[] = [];
  private framesSent = 0;
  private lastT: number;
  private outputGone = false;

  constructor(options: ReplayAgentOptions) {
    this.output = options.output ?? process.stdout;
    this.log = options.log ?? (() => undefined);
    this.speed = options.fast ? Infinity : (options.speed ?? 1);
    this.frames = options.script.frames;
    this.live = new LineQueue(options.input ?? process.stdin);
    this.schedule = new ReplaySchedule(this.frames);
    this.lastT = this.frames[0]?.t ?? 0;
    // stays attached: a late EPIPE from a client that went away must not crash the process
    this.output.on('error', (e: Error) => {
      this.outputGone = true;
      this.log(`client output: ${e.message}`);
    });
  }

  async run(): Promise<ReplayAgentResult> {
    let ended = false;
    let closed = false;
    while (!this.outputGone) {
      await this.playDue();
      if (!ended && this.schedule.finished) {
        ended = true;
        this.log(`replay: all ${this.frames.length} recorded frames played`);
      }
      const m = await this.readLive();
      if (!m) {
        closed = true;
        break;
      }
      if (m.d.kind === 'response' || m.d.kind === 'error') this.onAnswer(m);
      else await this.onCall(m);
    }
    const completed = this.schedule.finished;
    // an empty recording is finished at once: there is always a frame here
    const f = completed ? undefined : (this.schedule.firstPending() ?? this.frames[this.frames.length - 1]);
    if (f) {
      const expected = describeFrame(f);
      const left = this.frames.length - this.frames.indexOf(f);
      this.diverge(
        f.seq,
        expected,
        closed ? 'connection closed' : 'client output closed',
        `replay: the client closed the connection at frame ${f.seq} (expected ${f.dir === 'editor->agent' ? 'the client to send' : 'to send'} ${expected}); ${left} recorded frame(s) from there not played`,
      );
    }
    return { completed, divergences: this.divergences, framesSent: this.framesSent };
  }

  /** The recorded frame at `i`, an index the schedule gave (a miss is a bug in the schedule, said as such). */
  private frame(i: number): ScriptFrame {
    const f = this.frames[i];
    if (!f) throw new RangeError(`replay: frame index ${i} outside the ${this.frames.length} recorded frames`);
    return f;
  }

  private diverge(seq: number, expected: string, got: string, message: string): void {
    this.divergences.push({ seq, expected, got, message });
    this.log(message);
  }

  private async refuse(m: Live, message: string, data: Record<string, unknown>): Promise<void> {
    if (m.d.kind === 'request')
      await writeLine(
        this.output,
        JSON.stringify({
          jsonrpc: '2.0',
          id: m.d.id,
          error: { code: REPLAY_MISMATCH_CODE, message, data: { ...data, got: m.d.method } },
        }),
      );
  }

  /** The client's next JSON-RPC message (undefined once it closed its side). */
  private async readLive(): Promise<Live | undefined> {
    for (;;) {
      const raw = await this.live.next();
      if (raw === undefined) return undefined;
      if (raw.trim() === '') continue; // blank lines between messages carry nothing
      const d = decodeFrame(raw);
      if (d.kind !== 'invalid') return { raw, d };
      this.log(
        `ignored a line from the client that is not JSON-RPC: ${raw.length > 120 ? raw.slice(0, 120) + '…' : raw}`,
      );
    }
  }

  /** A recorded gap; the client closing its side ends it. */
  private async pause(ms: number): Promise<void> {
    if (!(ms > 0) || !Number.isFinite(ms)) return;
    let t: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (t = setTimeout(resolve, ms))), this.live.closed]);
    clearTimeout(t);
  }

  /** The recorded agent frame `i`, under the live ids, as the line to write (undefined: skip it). */
  private liveLine(i: number): string | undefined {
    const f = this.frame(i);
    let msg = f.message;
    // what the recorded agent wrote, garbage included (every other kind has its message)
    if (f.kind === 'invalid' || msg === undefined) return f.raw;
    if (f.kind === 'response' || f.kind === 'error') {
      const r = this.schedule.requestIndexOf(i);
      const liveId = r === undefined ? undefined : this.editorIds.get(r);
      if (liveId === undefined) {
        this.log(`skipped frame ${f.seq}: ${describeFrame(f)} answers no request the client sent`);
        return undefined;
      }
      if (liveId !== f.id) msg = { ...msg, id: liveId };
    } else if (f.kind === 'request') {
      const recordedId = f.id ?? null;
      const id = this.agentIds.open(recordedId);
      this.recordedIdOf.set(key(id), recordedId);
      if (id !== f.id) msg = { ...msg, id };
    }
    const mapped = this.values.apply(msg);
    return msg === f.message && !mapped.changed ? f.raw : JSON.stringify(mapped.value);
  }

  /** Plays every agent frame that is due, in recorded order, with the recorded gaps. */
  private async playDue(): Promise<void> {
    for (let i = this.schedule.nextPlayable(); i !== undefined && !this.outputGone; i = this.schedule.nextPlayable()) {
      const f = this.frame(i);
      await this.pause((f.t - this.lastT) / this.speed);
      this.lastT = Math.max(this.lastT, f.t);
      const line = this.liveLine(i);
      this.schedule.played(i);
      if (line === undefined) continue;
      await writeLine(this.output, line);
      this.framesSent++;
    }
  }

  /** A live request or notification: the recorded one it stands for, or the mismatch error. */
  private async onCall(m: Live): Promise<void> {
    const kind = m.d.kind === 'request' ? 'request' : 'notification';
    const i = this.schedule.matchCall(kind, m.d.method ?? '');
    if (i === undefined) {
      const f = this.schedule.nextExpectedCall();
      if (!f) {
        const message = `replay: the recording has ended (${this.frames.length} frames), got ${m.d.method}`;
        this.diverge(
          this.frames[this.frames.length - 1]?.seq ?? 0,
          'nothing (end of recording)',
          describeFrame(m.d),
          message,
        );
        return this.refuse(m, message, { expected: null, frame: null });
      }
      const message = `replay: expected ${f.method} at frame ${f.seq}, got ${m.d.method}`;
      this.diverge(f.seq, describeFrame(f), describeFrame(m.d), message);
      return this.refuse(m, message, { expected: f.method, frame: f.seq });
    }
    const f = this.frame(i);
    this.values.learn(f.message?.params, at(m.d.message, 'params'));
    if (kind === 'request') this.editorIds.set(i, m.d.id ?? null);
    this.lastT = Math.max(this.lastT, f.t);
    this.schedule.clientDid(i);
  }

  /** The live client's answer to one of the recorded agent's requests. */
  private onAnswer(m: Live): void {
    const recordedId = this.recordedIdOf.get(key(m.d.id));
    const i = recordedId === undefined ? undefined : this.schedule.clientAnswerTo(recordedId);
    if (recordedId === undefined || i === undefined) {
      this.log(`the client answered #${String(m.d.id)}, which no replayed request in flight has`);
      return;
    }
    this.recordedIdOf.delete(key(m.d.id));
    this.agentIds.close(m.d.id ?? null);
    const f = this.frame(i);
    if (m.d.kind !== f.kind)
      this.log(
        `note: frame ${f.seq}: the client answered #${String(m.d.id)} with ${m.d.kind === 'error' ? 'an error' : 'a result'}, the recording has ${f.kind === 'error' ? 'an error' : 'a result'}; replay goes on as recorded`,
      );
    else if (f.kind === 'response') this.values.learn(f.message?.result, at(m.d.message, 'result'));
    this.lastT = Math.max(this.lastT, f.t);
    this.schedule.clientDid(i);
  }
}

import type { Readable, Writable } from 'node:stream';
import { at } from '../json.js';
import { decodeFrame, type DecodedFrame, type FrameId } from '../capture.js';
import { key, RequestIdMap, ValueMap } from './id-map.js';
import { LineQueue, writeLine } from './lines.js';
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
 * Plays the agent side of a capture to a live client: the client's requests are matched to the
 * recorded editor requests in order by method (not by id) and answered with the recorded
 * responses under the live request's id; recorded agent requests keep their ids unless one is
 * still in flight, and the client's answers are matched back by id. Session, message, tool call
 * and terminal ids stay as recorded unless the live client chose others (e.g. the `sessionId` of
 * a `session/load`, a v1 `terminalId`), which are then rewritten consistently; a different live
 * `cwd` maps recorded paths under it. A request that does not match gets a
 * {@link REPLAY_MISMATCH_CODE} error naming the expected method and frame, and replay keeps
 * waiting for the expected one. Resolves when the client closes its side.
 */
export async function replayAsAgent(options: ReplayAgentOptions): Promise<ReplayAgentResult> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const log = options.log ?? (() => undefined);
  const speed = options.fast ? Infinity : options.speed ?? 1;
  const frames = options.script.frames;
  const live = new LineQueue(input);
  const values = new ValueMap();
  const editorIds = new Map<string, FrameId>(); // recorded editor request id -> live id
  const agentIds = new RequestIdMap();
  const answers = new Map<string, Live>(); // live answers to our requests, by live id
  const pushback: Live[] = []; // live requests/notifications read while waiting for an answer
  const divergences: ReplayDivergence[] = [];
  let framesSent = 0;
  let closed = false;
  let lastT = frames.length > 0 ? frames[0]!.t : 0;

  const send = async (line: string): Promise<void> => {
    await writeLine(output, line);
    framesSent++;
  };
  const diverge = (seq: number, expected: string, got: string, message: string): void => {
    divergences.push({ seq, expected, got, message });
    log(message);
  };
  const readLive = async (): Promise<Live | undefined> => {
    for (;;) {
      const raw = await live.next();
      if (raw === undefined) {
        closed = true;
        return undefined;
      }
      const d = decodeFrame(raw);
      if (d.kind === 'invalid') {
        log(`ignored a line from the client that is not JSON-RPC: ${raw.length > 120 ? raw.slice(0, 120) + '…' : raw}`);
        continue;
      }
      return { raw, d };
    }
  };
  /** The next live request or notification (answers to our requests are put aside). */
  const nextCall = async (): Promise<Live | undefined> => {
    const held = pushback.shift();
    if (held) return held;
    for (;;) {
      const m = await readLive();
      if (!m) return undefined;
      if (m.d.kind === 'response' || m.d.kind === 'error') answers.set(key(m.d.id), m);
      else return m;
    }
  };
  /** The live answer to our request `liveId` (requests arriving meanwhile are kept for later). */
  const answerTo = async (liveId: FrameId): Promise<Live | undefined> => {
    for (;;) {
      const a = answers.get(key(liveId));
      if (a) {
        answers.delete(key(liveId));
        return a;
      }
      const m = await readLive();
      if (!m) return undefined;
      if (m.d.kind === 'response' || m.d.kind === 'error') answers.set(key(m.d.id), m);
      else pushback.push(m);
    }
  };
  const mismatch = async (f: ScriptFrame, m: Live): Promise<void> => {
    const got = `${m.d.method}`;
    const message = `replay: expected ${f.method} at frame ${f.seq}, got ${got}`;
    diverge(f.seq, describeFrame(f), describeFrame(m.d), message);
    if (m.d.kind === 'request') {
      await writeLine(output, JSON.stringify({ jsonrpc: '2.0', id: m.d.id, error: { code: REPLAY_MISMATCH_CODE, message, data: { expected: f.method, frame: f.seq, got: m.d.method } } }));
    }
  };
  // the client closing its side ends any wait, also a recorded gap
  // (lines still queued are read first: `closed` is set by readLive at the real end)
  let outputGone = false;
  const onOutputError = (e: Error): void => {
    outputGone = true;
    log(`client output: ${e.message}`);
  };
  // stays attached: a late EPIPE from a client that went away must not crash the process
  output.on('error', onOutputError);
  const closedSignal = live.closed;
  const pause = async (ms: number): Promise<void> => {
    if (!(ms > 0) || !Number.isFinite(ms)) return;
    let t: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (t = setTimeout(resolve, ms))), closedSignal]);
    clearTimeout(t);
  };

  let i = 0;
  for (; i < frames.length && !closed && !outputGone; i++) {
    const f = frames[i]!;
    if (f.dir === 'agent->editor') {
      await pause((f.t - lastT) / speed);
      lastT = f.t;
      if (f.kind === 'invalid') {
        await send(f.raw); // what the recorded agent wrote, garbage included
        continue;
      }
      let msg = f.message!;
      let changed = false;
      if (f.kind === 'response' || f.kind === 'error') {
        const liveId = editorIds.get(key(f.id));
        if (liveId === undefined) {
          log(`skipped frame ${f.seq}: ${describeFrame(f)} answers no request the client sent`);
          continue;
        }
        editorIds.delete(key(f.id));
        if (liveId !== f.id) {
          msg = { ...msg, id: liveId };
          changed = true;
        }
      } else if (f.kind === 'request') {
        const id = agentIds.open(f.id!);
        if (id !== f.id) {
          msg = { ...msg, id };
          changed = true;
        }
      }
      const mapped = values.apply(msg);
      await send(changed || mapped.changed ? JSON.stringify(mapped.value) : f.raw);
      continue;
    }
    // editor -> agent: what the live client has to do next
    if (f.kind === 'invalid') continue;
    if (f.kind === 'request' || f.kind === 'notification') {
      for (;;) {
        const m = await nextCall();
        if (!m) break;
        if (m.d.kind === f.kind && m.d.method === f.method) {
          values.learn(f.message!.params, at(m.d.message, 'params'));
          if (f.kind === 'request') editorIds.set(key(f.id), m.d.id ?? null);
          break;
        }
        await mismatch(f, m);
      }
    } else {
      const liveId = agentIds.liveId(f.id ?? null);
      if (liveId === undefined) continue; // answers a request that was never sent
      const a = await answerTo(liveId);
      if (!a) break;
      agentIds.close(liveId);
      const result = at(a.d.message, 'result');
      if (a.d.kind !== f.kind) log(`note: frame ${f.seq}: the client answered #${String(liveId)} with ${a.d.kind === 'error' ? 'an error' : 'a result'}, the recording has ${f.kind === 'error' ? 'an error' : 'a result'}; replay goes on as recorded`);
      else if (f.kind === 'response') values.learn(f.message!.result, result);
    }
    if (closed) break;
    lastT = f.t;
  }
  const completed = i >= frames.length;
  if (!completed) {
    const f = frames[i] ?? frames[frames.length - 1]!;
    const expected = describeFrame(f);
    diverge(f.seq, expected, 'connection closed', `replay: the client closed the connection at frame ${f.seq} (expected ${f.dir === 'editor->agent' ? 'the client to send' : 'to send'} ${expected}); ${frames.length - i} recorded frame(s) not played`);
  } else log(`replay: all ${frames.length} recorded frames played`);
  // the recording is over: a live request from now on has nothing to match
  for (;;) {
    const m = await nextCall();
    if (!m) break;
    const message = `replay: the recording has ended (${frames.length} frames), got ${m.d.method}`;
    diverge(frames.length > 0 ? frames[frames.length - 1]!.seq : 0, 'nothing (end of recording)', describeFrame(m.d), message);
    if (m.d.kind === 'request') await writeLine(output, JSON.stringify({ jsonrpc: '2.0', id: m.d.id, error: { code: REPLAY_MISMATCH_CODE, message, data: { expected: null, frame: null, got: m.d.method } } }));
  }
  return { completed, divergences, framesSent };
}

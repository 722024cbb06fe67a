import type { Writable } from 'node:stream';
import { spawnRawAgent, type RawAgentProcess } from '../agent-process.js';
import { decodeFrame, type CaptureWriter, type DecodedFrame, type FrameId } from '../../captures/capture.js';
import { at, isObj, numberAt, stringAt } from '@acp-kit/protocol/internal';
import { AnswerIndex } from './answer-index.js';
import { key, RequestIdMap, ValueMap } from './id-map.js';
import { LineQueue, writeLine } from './lines.js';
import type { ReplayDivergence } from './replay-agent.js';
import { driveReplay, LiveProgress } from './replay-driver.js';
import { ReplayClientServices, type ReplayPermission } from './replay-services.js';
import { describeFrame, updateKind, type ReplayScript, type ScriptFrame } from './script.js';

export type { ReplayPermission } from './replay-services.js';

/** Options of {@link replayAsClient}. */
export interface ReplayClientOptions {
  /** The recording (see {@link loadReplayScript}). */
  script: ReplayScript;
  /** The live agent program and its arguments. */
  command: string;
  args?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /**
   * The live working directory: the agent runs there, and the recorded session `cwd` (and paths
   * under it) are mapped onto it. Default: the recorded `cwd` is used as is.
   */
  cwd?: string;
  /**
   * `recorded` (default): the option of the same kind the recorded client chose (in order of the
   * permission requests), `allow` / `reject`: the first offered option of that kind.
   */
  permission?: ReplayPermission;
  /** Records the new run (every frame both ways, the negotiated version, the agent's exit). */
  recorder?: CaptureWriter;
  /** Where the agent's stderr goes (default: this process's stderr). */
  agentStderr?: Writable;
  /** Longest wait for one thing the recording says comes next (default 120 000 ms). */
  timeoutMs?: number;
  /** After the last frame: how long the agent may take to exit at stdin EOF before it is killed (default 5000 ms). */
  exitTimeoutMs?: number;
  /** Replay's own notes. */
  log?: (line: string) => void;
}

/** How a client-side replay ended. */
export interface ReplayClientResult {
  /** True when every recorded client frame was sent and every recorded answer arrived. */
  completed: boolean;
  /** Where the agent did something else than the recording (the run stops there). */
  divergence?: ReplayDivergence;
  /**
   * Set when the live agent answered `initialize` with another protocol version than the
   * recorded agent: nothing after it can match, so the run stops there (also in `divergence`).
   */
  versionMismatch?: { recorded: number; live: number };
  /** Requests and notifications sent to the agent. */
  sent: number;
  agentExitCode: number | null;
  agentSignal: string | null;
}

interface Sent {
  request: ScriptFrame;
  /** The recorded answer to it, when the recording has one. */
  answer?: ScriptFrame;
}

const SESSION_OPENERS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);

/**
 * Drives a live agent with the client side of a capture: the recorded requests and notifications
 * are sent in order (ids as recorded unless one is still in flight), each only after the live
 * agent has given every answer the recording shows before it, as many permission requests, and
 * as many v2 `state_update`s of each state. Ids the live agent chose differently (session ids,
 * message ids, tool call ids) are learnt from its answers and requests and rewritten in later
 * requests. The agent's requests are answered: permissions as recorded (or by policy), `fs/*` and
 * `terminal/*` by the sandboxed client services rooted at the session's cwd, anything else with
 * the recorded answer for that method. Stops at the first divergence: an answer of the other
 * kind (error vs result), the agent exiting, or a wait longer than `timeoutMs`.
 */
export async function replayAsClient(options: ReplayClientOptions): Promise<ReplayClientResult> {
  const log = options.log ?? (() => undefined);
  const frames = options.script.frames;
  const index = new AnswerIndex(frames);
  const values = valueMapFor(options);
  const services = new ReplayClientServices(index, values, options.permission ?? 'recorded', log);
  const progress = new LiveProgress(log);
  const agent = spawnRawAgent(options.command, options.args ?? [], {
    cwd: options.cwd,
    env: options.env,
    stderr: options.agentStderr ?? process.stderr,
    log,
  });
  const link = new LiveAgentLink(agent, { index, values, services, progress, recorder: options.recorder, log });
  const agentOut = new LineQueue(agent.child.stdout);
  const pump = (async () => {
    for (let line = await agentOut.next(); line !== undefined; line = await agentOut.next()) link.onAgentLine(line);
    progress.gone();
  })();

  const describeGone = (): Promise<string> => describeAgentGone(agent);
  const completed = await driveReplay(frames, index, {
    progress,
    timeoutMs: options.timeoutMs ?? 120_000,
    describeGone,
    send: (f) => link.sendRecorded(f),
  });
  if (completed) log(`replay: all ${frames.length} recorded frames done`);

  const r = await stopAgent(agent, options.exitTimeoutMs ?? 5000, log);
  await Promise.race([pump, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  await services.close();
  options.recorder?.meta({ exitCode: r.exitCode, signal: r.signal });
  const divergence = progress.divergence;
  return {
    completed: completed && !divergence,
    divergence,
    versionMismatch: link.versionMismatch,
    sent: link.sentCount,
    agentExitCode: r.exitCode,
    agentSignal: r.signal,
  };
}

/** The id and path mapping, seeded with the recorded session `cwd` -> the live `cwd` when one is given. */
function valueMapFor(options: ReplayClientOptions): ValueMap {
  const values = new ValueMap();
  if (options.cwd === undefined) return values;
  const opener = options.script.frames.find(
    (f) => f.dir === 'editor->agent' && f.kind === 'request' && SESSION_OPENERS.has(f.method ?? ''),
  );
  const recordedCwd = stringAt(opener?.message, 'params', 'cwd');
  if (recordedCwd !== undefined) values.mapRoot(recordedCwd, options.cwd);
  return values;
}

/** How the agent went away, once its stdout ended: `exited with code 1`, `was killed by SIGTERM`, … */
async function describeAgentGone(agent: RawAgentProcess): Promise<string> {
  // stdout ends just before the exit is reported: give it a moment to tell the code
  const r = await Promise.race([
    agent.exited,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000).unref()),
  ]);
  const spawnError = agent.spawnError();
  if (spawnError) return agent.describeSpawnError(spawnError);
  if (r?.signal) return `was killed by ${r.signal}`;
  return r ? `exited with code ${r.exitCode}` : 'closed its stdout';
}

/** The end: EOF to the agent, a bounded time to exit, then its whole group goes. */
async function stopAgent(
  agent: RawAgentProcess,
  exitTimeoutMs: number,
  log: (line: string) => void,
): Promise<{ exitCode: number | null; signal: string | null }> {
  agent.child.stdin.end();
  let timer: NodeJS.Timeout | undefined;
  const exitTimeout = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), exitTimeoutMs)),
  );
  if ((await Promise.race([agent.exited, exitTimeout])) === 'timeout') {
    log('the agent is still running after stdin closed; stopping it');
  }
  clearTimeout(timer);
  await agent.kill(); // leftovers of the group never outlive the replay
  return agent.exited;
}

interface LinkParts {
  index: AnswerIndex;
  values: ValueMap;
  services: ReplayClientServices;
  progress: LiveProgress;
  recorder: CaptureWriter | undefined;
  log: (line: string) => void;
}

/**
 * The live agent's pipes as the replay uses them: sends recorded editor frames with live ids and
 * values, reads the agent's lines into the progress the driver waits on, answers its requests.
 */
class LiveAgentLink {
  sentCount = 0;
  versionMismatch: { recorded: number; live: number } | undefined;
  private readonly ids = new RequestIdMap();
  /** live id -> what it stands for */
  private readonly sent = new Map<string, Sent>();
  private initId: FrameId | undefined;
  private versionRecorded = false;

  constructor(
    private readonly agent: RawAgentProcess,
    private readonly p: LinkParts,
  ) {}

  private async send(line: string, counts: boolean): Promise<void> {
    this.p.recorder?.frame('editor->agent', line);
    if (counts) this.sentCount++;
    await writeLine(this.agent.child.stdin, line);
  }

  /** Sends one recorded editor request or notification, its ids and values mapped onto the live run. */
  async sendRecorded(f: ScriptFrame): Promise<void> {
    const mapped = this.p.values.apply(f.message).value;
    if (!isObj(mapped)) return; // not reached: requests and notifications are objects (scriptFromFrames)
    if (f.kind === 'request') {
      const id = this.ids.open(f.id ?? null);
      mapped.id = id;
      this.sent.set(key(id), { request: f, answer: this.p.index.answerTo(f.seq) });
      if (f.method === 'initialize') this.initId = id;
      if (SESSION_OPENERS.has(f.method ?? '')) this.p.services.addSessionRoots(mapped.params);
    }
    const unchanged = JSON.stringify(mapped) === JSON.stringify(f.message);
    await this.send(unchanged ? f.raw : JSON.stringify(mapped), true);
  }

  onAgentLine(raw: string): void {
    this.p.recorder?.frame('agent->editor', raw);
    const d = decodeFrame(raw);
    if (d.kind === 'response' || d.kind === 'error') this.onAnswer(d);
    else if (d.kind === 'request') {
      const params = at(d.message, 'params');
      void this.onAgentRequest(d.id ?? null, d.method, isObj(params) ? params : {});
    } else if (d.kind === 'notification') {
      const { update, state } = updateKind(d.message);
      if (update === 'state_update' && state !== undefined) this.p.progress.state(state);
    } else {
      this.p.log(`the agent wrote a line that is not JSON-RPC: ${raw.length > 120 ? raw.slice(0, 120) + '…' : raw}`);
    }
  }

  private async onAgentRequest(id: FrameId, method: string, params: Record<string, unknown>): Promise<void> {
    if (method === 'session/request_permission') this.p.progress.permission();
    const reply = await this.p.services.answer(method, params);
    const msg =
      reply.error !== undefined
        ? { jsonrpc: '2.0', id, error: reply.error }
        : { jsonrpc: '2.0', id, result: reply.result ?? {} };
    await this.send(JSON.stringify(msg), false);
  }

  private onAnswer(d: DecodedFrame & { kind: 'response' | 'error' }): void {
    const msg = d.message;
    if (d.kind === 'response') this.recordVersion(d);
    const s = this.sent.get(key(d.id));
    if (!s) {
      this.p.log(`the agent answered #${String(d.id)}, which no request in flight has`);
      return;
    }
    this.sent.delete(key(d.id));
    this.ids.close(d.id ?? null);
    const progress = this.p.progress;
    if (s.answer && s.answer.kind !== d.kind) {
      const what = d.kind === 'error' ? `an error ${JSON.stringify(at(msg, 'error', 'message') ?? '')}` : 'a result';
      progress.diverge(
        s.answer.seq,
        describeFrame(s.answer),
        describeFrame(d),
        `replay: the agent answered ${s.request.method} (frame ${s.request.seq}) with ${what}; the recording has ${s.answer.kind === 'error' ? 'an error' : 'a result'} at frame ${s.answer.seq}`,
      );
    } else if (d.kind === 'response' && (this.versionMismatch = otherVersion(s, msg))) {
      const { recorded, live } = this.versionMismatch;
      // every later frame is in the recorded version's shapes: waiting for them would only time out
      progress.diverge(
        s.answer?.seq ?? s.request.seq,
        `protocol version ${recorded}`,
        `protocol version ${live}`,
        `replay: version mismatch: the recording speaks ACP v${recorded}, the live agent answered initialize (frame ${s.request.seq}) with v${live}; replay a v${live} recording against it, or put \`acp-kit proxy --bridge ${recorded}\` in front of the agent`,
      );
    } else if (s.answer && d.kind === 'response') this.p.values.learn(s.answer.message?.result, msg?.result);
    progress.answer(s.request.seq);
  }

  /** The negotiated version goes into the new recording's meta, once. */
  private recordVersion(d: DecodedFrame): void {
    const recorder = this.p.recorder;
    if (!recorder || this.versionRecorded || this.initId === undefined || d.id !== this.initId) return;
    const pv = numberAt(d.message, 'result', 'protocolVersion');
    if (pv === undefined) return;
    this.versionRecorded = true;
    recorder.meta({ protocolVersion: pv });
  }
}

/** Recorded and live versions when the live initialize answer negotiated another one than the recording. */
function otherVersion(
  s: Sent,
  msg: Record<string, unknown> | undefined,
): { recorded: number; live: number } | undefined {
  if (s.request.method !== 'initialize') return undefined;
  const recorded = numberAt(s.answer?.message, 'result', 'protocolVersion');
  const live = numberAt(msg, 'result', 'protocolVersion');
  return recorded !== undefined && live !== undefined && recorded !== live ? { recorded, live } : undefined;
}

import type { Writable } from 'node:stream';
import { FileSystemSandbox } from '@acp-kit/client';
import { TerminalManager } from '@acp-kit/client';
import { v1Codec } from '@acp-kit/protocol';
import { AcpError, ErrorCode } from '@acp-kit/protocol';
import { Methods } from '@acp-kit/protocol';
import { spawnRawAgent } from '../agent-process.js';
import { decodeFrame, type CaptureWriter, type FrameId } from '../../captures/capture.js';
import { at, isObj, numberAt, stringAt } from '@acp-kit/protocol/internal';
import { key, RequestIdMap, ValueMap } from './id-map.js';
import { LineQueue, writeLine } from './lines.js';
import type { ReplayDivergence } from './replay-agent.js';
import { describeFrame, updateKind, type ReplayScript, type ScriptFrame } from './script.js';

/** How {@link replayAsClient} answers the live agent's permission requests. */
export type ReplayPermission = 'recorded' | 'allow' | 'reject';

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
  const recorder = options.recorder;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const values = new ValueMap();
  if (options.cwd !== undefined) {
    const opener = frames.find((f) => f.dir === 'editor->agent' && f.kind === 'request' && SESSION_OPENERS.has(f.method ?? ''));
    const recordedCwd = stringAt(opener?.message, 'params', 'cwd');
    if (recordedCwd !== undefined) values.mapRoot(recordedCwd, options.cwd);
  }

  // recorded answers: request seq -> answer frame, answer seq -> request seq
  const answerOf = new Map<number, ScriptFrame>();
  const requestOfAnswer = new Map<number, number>();
  const recordedAgentCalls = new Map<string, Array<{ request: ScriptFrame; answer?: ScriptFrame }>>();
  {
    const open = new Map<string, ScriptFrame>();
    const openAgent = new Map<string, { request: ScriptFrame; answer?: ScriptFrame }>();
    for (const f of frames) {
      if (f.kind === 'request' && f.dir === 'editor->agent') open.set(key(f.id), f);
      else if (f.kind === 'request') {
        const entry = { request: f };
        openAgent.set(key(f.id), entry);
        const list = recordedAgentCalls.get(f.method!) ?? [];
        list.push(entry);
        recordedAgentCalls.set(f.method!, list);
      } else if ((f.kind === 'response' || f.kind === 'error') && f.dir === 'agent->editor') {
        const req = open.get(key(f.id));
        if (req) {
          open.delete(key(f.id));
          answerOf.set(req.seq, f);
          requestOfAnswer.set(f.seq, req.seq);
        }
      } else if (f.kind === 'response' || f.kind === 'error') {
        const entry = openAgent.get(key(f.id));
        if (entry) {
          openAgent.delete(key(f.id));
          entry.answer = f;
        }
      }
    }
  }
  const recordedCallsUsed = new Map<string, number>();
  const nextRecordedCall = (method: string): { request: ScriptFrame; answer?: ScriptFrame } | undefined => {
    const n = recordedCallsUsed.get(method) ?? 0;
    recordedCallsUsed.set(method, n + 1);
    return recordedAgentCalls.get(method)?.[n];
  };

  const agent = spawnRawAgent(options.command, options.args ?? [], { cwd: options.cwd, env: options.env, stderr: options.agentStderr ?? process.stderr, log });
  const { child, exited, spawnError } = agent;
  const agentOut = new LineQueue(child.stdout);

  let divergence: ReplayDivergence | undefined;
  let versionMismatch: { recorded: number; live: number } | undefined;
  let agentGone = false;
  let sentCount = 0;
  const ids = new RequestIdMap();
  const sent = new Map<string, Sent>(); // live id -> what it stands for
  const answered = new Set<number>(); // recorded request seqs whose live answer arrived
  let livePermissions = 0;
  const liveStates = new Map<string, number>();
  let roots: string[] = [];
  let sandbox: FileSystemSandbox | undefined;
  const terminals = new TerminalManager({ roots: [] });
  let terminalsFor: TerminalManager | undefined = terminals;
  let initId: FrameId | undefined;
  let versionRecorded = false;

  // waiters re-check their condition after every agent line and when the agent goes away
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => (wake = resolve));
  const notify = (): void => {
    const w = wake;
    changed = new Promise<void>((resolve) => (wake = resolve));
    w();
  };

  const send = async (line: string, counts: boolean): Promise<void> => {
    recorder?.frame('editor->agent', line);
    if (counts) sentCount++;
    await writeLine(child.stdin, line);
  };
  const diverge = (seq: number, expected: string, got: string, message: string): void => {
    if (divergence) return;
    divergence = { seq, expected, got, message };
    log(message);
    notify();
  };

  const sessionRoots = (params: unknown): void => {
    const dirs = at(params, 'additionalDirectories');
    const add = [at(params, 'cwd'), ...(Array.isArray(dirs) ? dirs : [])].filter((x): x is string => typeof x === 'string' && x.startsWith('/'));
    const next = [...new Set([...roots, ...add])];
    if (next.length !== roots.length) {
      roots = next;
      sandbox = new FileSystemSandbox(roots);
      terminalsFor = undefined; // a new root set: terminals created from now on check against it
    }
  };
  let terminalManagers: TerminalManager[] = [terminals];
  const terminalManager = (): TerminalManager => {
    if (!terminalsFor) {
      terminalsFor = new TerminalManager({ roots, defaultCwd: roots[0] });
      terminalManagers.push(terminalsFor);
    }
    return terminalsFor;
  };
  const terminalOwner = new Map<string, TerminalManager>();

  const permissionAnswer = (params: Record<string, unknown>): { result?: unknown; error?: unknown } => {
    const offered: unknown[] = Array.isArray(params.options) ? params.options : [];
    const pick = (kinds: string[]): unknown => {
      for (const k of kinds) {
        const o = offered.find((x) => at(x, 'kind') === k);
        if (o) return { outcome: { outcome: 'selected', optionId: at(o, 'optionId') } };
      }
      return { outcome: { outcome: 'cancelled' } };
    };
    const policy = options.permission ?? 'recorded';
    if (policy === 'allow') return { result: pick(['allow_once', 'allow_always']) };
    if (policy === 'reject') return { result: pick(['reject_once', 'reject_always']) };
    const rec = nextRecordedCall('session/request_permission');
    if (!rec?.answer) {
      log(`permission request #${livePermissions} has no recorded answer; answering cancelled`);
      return { result: { outcome: { outcome: 'cancelled' } } };
    }
    if (rec.answer.kind === 'error') return { error: at(rec.answer.message, 'error') };
    const outcome = at(rec.answer.message, 'result', 'outcome');
    if (at(outcome, 'outcome') !== 'selected') return { result: { outcome: { outcome: 'cancelled' } } };
    const chosen = at(outcome, 'optionId');
    const recOptions = at(rec.request.message, 'params', 'options');
    const kind = Array.isArray(recOptions) ? at(recOptions.find((o) => at(o, 'optionId') === chosen), 'kind') : undefined;
    const same = offered.find((o) => at(o, 'kind') === kind && kind !== undefined) ?? offered.find((o) => at(o, 'optionId') === chosen);
    if (!same) {
      log(`the recorded permission answer chose ${String(chosen)} (${String(kind)}), which the live request does not offer; answering cancelled`);
      return { result: { outcome: { outcome: 'cancelled' } } };
    }
    return { result: { outcome: { outcome: 'selected', optionId: at(same, 'optionId') } } };
  };

  const serve = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    switch (method) {
      case 'fs/read_text_file':
        if (!sandbox) throw AcpError.invalidParams('fs/read_text_file before any session was opened: no session roots');
        // fs/* and terminal/* are v1 client services: their params are read with the v1 codec
        return sandbox.readTextFile(v1Codec.decodeParams(Methods.fsReadTextFile, params));
      case 'fs/write_text_file':
        if (!sandbox) throw AcpError.invalidParams('fs/write_text_file before any session was opened: no session roots');
        return sandbox.writeTextFile(v1Codec.decodeParams(Methods.fsWriteTextFile, params));
      case 'terminal/create': {
        if (roots.length === 0) throw AcpError.invalidParams('terminal/create before any session was opened: no session roots');
        const m = terminalManager();
        const r = m.create(v1Codec.decodeParams(Methods.terminalCreate, params));
        terminalOwner.set(r.terminalId, m);
        return r;
      }
      case 'terminal/output':
      case 'terminal/wait_for_exit':
      case 'terminal/kill':
      case 'terminal/release': {
        const id = String(params.terminalId);
        const m = terminalOwner.get(id) ?? terminals;
        if (method === 'terminal/output') return m.output(id, sessionId);
        if (method === 'terminal/wait_for_exit') return m.waitForExit(id, undefined, sessionId);
        if (method === 'terminal/kill') await m.kill(id, sessionId);
        else await m.release(id, sessionId);
        return {};
      }
      default: {
        const rec = nextRecordedCall(method);
        if (!rec?.answer) throw AcpError.methodNotFound(method);
        if (rec.answer.kind === 'error') {
          const e = at(rec.answer.message, 'error');
          throw AcpError.fromObject({ code: numberAt(e, 'code') ?? ErrorCode.InternalError, message: stringAt(e, 'message') ?? 'Unknown error', data: at(e, 'data') });
        }
        return values.apply(at(rec.answer.message, 'result')).value;
      }
    }
  };

  const onAgentRequest = async (id: FrameId, method: string, params: Record<string, unknown>): Promise<void> => {
    let reply: { result?: unknown; error?: unknown };
    if (method === 'session/request_permission') {
      livePermissions++;
      notify();
      reply = permissionAnswer(params);
    } else {
      try {
        reply = { result: await serve(method, params) };
      } catch (e) {
        reply = { error: AcpError.from(e).toJSON() };
      }
    }
    const msg = reply.error !== undefined ? { jsonrpc: '2.0', id, error: reply.error } : { jsonrpc: '2.0', id, result: reply.result ?? {} };
    await send(JSON.stringify(msg), false);
  };

  /** Recorded and live versions when the live initialize answer negotiated another one than the recording. */
  const otherVersion = (s: Sent, msg: Record<string, unknown> | undefined): { recorded: number; live: number } | undefined => {
    if (s.request.method !== 'initialize') return undefined;
    const recorded = numberAt(s.answer?.message, 'result', 'protocolVersion');
    const live = numberAt(msg, 'result', 'protocolVersion');
    return recorded !== undefined && live !== undefined && recorded !== live ? { recorded, live } : undefined;
  };

  const onAgentLine = (raw: string): void => {
    recorder?.frame('agent->editor', raw);
    const d = decodeFrame(raw);
    if (d.kind === 'response' || d.kind === 'error') {
      const msg = d.message;
      if (recorder && !versionRecorded && initId !== undefined && d.id === initId && d.kind === 'response') {
        const pv = numberAt(msg, 'result', 'protocolVersion');
        if (pv !== undefined) {
          versionRecorded = true;
          recorder.meta({ protocolVersion: pv });
        }
      }
      const s = sent.get(key(d.id));
      if (!s) {
        log(`the agent answered #${String(d.id)}, which no request in flight has`);
        return;
      }
      sent.delete(key(d.id));
      ids.close(d.id ?? null);
      answered.add(s.request.seq);
      if (s.answer && s.answer.kind !== d.kind) {
        const what = d.kind === 'error' ? `an error ${JSON.stringify(at(msg, 'error', 'message') ?? '')}` : 'a result';
        diverge(s.answer.seq, describeFrame(s.answer), describeFrame(d), `replay: the agent answered ${s.request.method} (frame ${s.request.seq}) with ${what}; the recording has ${s.answer.kind === 'error' ? 'an error' : 'a result'} at frame ${s.answer.seq}`);
      } else if (d.kind === 'response' && (versionMismatch = otherVersion(s, msg))) {
        const { recorded, live } = versionMismatch;
        // every later frame is in the recorded version's shapes: waiting for them would only time out
        diverge(s.answer?.seq ?? s.request.seq, `protocol version ${recorded}`, `protocol version ${live}`, `replay: version mismatch: the recording speaks ACP v${recorded}, the live agent answered initialize (frame ${s.request.seq}) with v${live}; replay a v${live} recording against it, or put \`acp-kit proxy --bridge ${recorded}\` in front of the agent`);
      } else if (s.answer && d.kind === 'response') values.learn(s.answer.message?.result, msg?.result);
      notify();
      return;
    }
    if (d.kind === 'request') {
      const params = at(d.message, 'params');
      void onAgentRequest(d.id ?? null, d.method, isObj(params) ? params : {});
      return;
    }
    if (d.kind === 'notification') {
      const { update, state } = updateKind(d.message);
      if (update === 'state_update' && state !== undefined) {
        liveStates.set(state, (liveStates.get(state) ?? 0) + 1);
        notify();
      }
      return;
    }
    log(`the agent wrote a line that is not JSON-RPC: ${raw.length > 120 ? raw.slice(0, 120) + '…' : raw}`);
  };

  const pump = (async () => {
    for (;;) {
      const line = await agentOut.next();
      if (line === undefined) break;
      onAgentLine(line);
    }
    agentGone = true;
    notify();
  })();

  // what the recording shows the agent did before the next client frame
  const needAnswers = new Set<number>();
  let needPermissions = 0;
  const needStates = new Map<string, number>();
  const satisfied = (): boolean => {
    for (const s of needAnswers) if (!answered.has(s)) return false;
    if (livePermissions < needPermissions) return false;
    for (const [state, n] of needStates) if ((liveStates.get(state) ?? 0) < n) return false;
    return true;
  };
  const pending = (): string => {
    const parts: string[] = [];
    for (const s of needAnswers) if (!answered.has(s)) parts.push(`the answer to ${frames.find((f) => f.seq === s)?.method ?? '?'} (frame ${s})`);
    if (livePermissions < needPermissions) parts.push(`permission request ${livePermissions + 1} of ${needPermissions}`);
    for (const [state, n] of needStates) if ((liveStates.get(state) ?? 0) < n) parts.push(`state_update ${state} #${n}`);
    return parts.join(', ');
  };
  const waitSatisfied = async (at: ScriptFrame | undefined): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    const where = at ? `before frame ${at.seq} (${describeFrame(at)})` : 'at the end of the recording';
    for (;;) {
      if (divergence) return false;
      if (satisfied()) return true;
      if (agentGone) {
        // stdout ends just before the exit is reported: give it a moment to tell the code
        const r = await Promise.race([exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000).unref())]);
        const how = spawnError() ? agent.describeSpawnError(spawnError()!) : r?.signal ? `was killed by ${r.signal}` : r ? `exited with code ${r.exitCode}` : 'closed its stdout';
        diverge(at?.seq ?? frames[frames.length - 1]?.seq ?? 0, pending(), 'agent gone', `replay: the agent ${how} ${where}, still waiting for ${pending()}`);
        return false;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        diverge(at?.seq ?? frames[frames.length - 1]?.seq ?? 0, pending(), 'timeout', `replay: waited ${timeoutMs / 1000} s ${where} for ${pending()}`);
        return false;
      }
      let t: NodeJS.Timeout | undefined;
      await Promise.race([changed, new Promise<void>((resolve) => (t = setTimeout(resolve, left)))]);
      clearTimeout(t);
    }
  };

  let i = 0;
  for (; i < frames.length; i++) {
    const f = frames[i]!;
    if (f.dir === 'agent->editor') {
      const reqSeq = requestOfAnswer.get(f.seq);
      if (reqSeq !== undefined) needAnswers.add(reqSeq);
      else if (f.kind === 'request' && f.method === 'session/request_permission') needPermissions++;
      else if (f.kind === 'notification') {
        const { update, state } = updateKind(f.message);
        if (update === 'state_update' && state !== undefined) needStates.set(state, (needStates.get(state) ?? 0) + 1);
      }
      continue;
    }
    // answers to agent requests are given live; lines that are not JSON-RPC are not resent
    if (f.kind !== 'request' && f.kind !== 'notification') continue;
    if (!(await waitSatisfied(f))) break;
    const mapped = values.apply(f.message).value;
    if (!isObj(mapped)) continue; // not reached: requests and notifications are objects (scriptFromFrames)
    if (f.kind === 'request') {
      const id = ids.open(f.id ?? null);
      mapped.id = id;
      sent.set(key(id), { request: f, answer: answerOf.get(f.seq) });
      if (f.method === 'initialize') initId = id;
      if (SESSION_OPENERS.has(f.method!)) sessionRoots(mapped.params);
    }
    const unchanged = JSON.stringify(mapped) === JSON.stringify(f.message);
    await send(unchanged ? f.raw : JSON.stringify(mapped), true);
  }
  const completed = i >= frames.length && (await waitSatisfied(undefined));
  if (completed) log(`replay: all ${frames.length} recorded frames done`);

  // the end: EOF to the agent, a bounded time to exit, then its whole group goes
  child.stdin.end();
  let timer: NodeJS.Timeout | undefined;
  const exitTimeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.exitTimeoutMs ?? 5000)));
  if ((await Promise.race([exited, exitTimeout])) === 'timeout') {
    log('the agent is still running after stdin closed; stopping it');
  }
  clearTimeout(timer);
  await agent.kill(); // leftovers of the group never outlive the replay
  const r = await exited;
  await Promise.race([pump, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  await Promise.all(terminalManagers.map((m) => m.releaseAll()));
  terminalManagers = [];
  recorder?.meta({ exitCode: r.exitCode, signal: r.signal });
  return { completed: completed && !divergence, divergence, versionMismatch, sent: sentCount, agentExitCode: r.exitCode, agentSignal: r.signal };
}

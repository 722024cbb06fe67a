import {
  describeExit,
  killAfterEditorClosed,
  proxyResult,
  spawnRawAgent,
  type AgentCommandOptions,
  type ProxyResult,
} from './agent-process.js';
import { decodeFrame, frameStamper, scanFrame, type DecodedFrame, type FrameDirection } from '../captures/capture.js';
import { DEFAULT_MAX_LINE_BYTES, forwardLines } from './forward-lines.js';
import { numberAt } from '@acp-kit/protocol/internal';
import { CaptureValidator } from '../captures/validate.js';

export type { ProxyResult } from './agent-process.js';

/** Options of {@link startProxy}. */
export interface ProxyOptions extends AgentCommandOptions {
  /** Grace between SIGTERM and SIGKILL when the agent is killed (default 2000 ms). */
  killTimeoutMs?: number;
  /**
   * Longest line recorded and checked whole when recording or validating (default 256 MiB): a longer
   * one is forwarded unchanged as its bytes come and recorded as a frame with its first 64 KiB and
   * `truncated` (its length in bytes).
   */
  maxLineBytes?: number;
}

/** A running proxy. */
export interface ProxyHandle {
  /** The agent's process id. */
  readonly pid: number | undefined;
  /**
   * Resolves once the agent has exited and its output has been forwarded: the exit code to use
   * (the agent's code, 128 + signal number when it was killed, 1 when it could not start).
   */
  readonly done: Promise<ProxyResult>;
  /** Terminates the agent's process group (SIGTERM, then SIGKILL) and resolves with {@link done}. */
  stop(): Promise<ProxyResult>;
}

/**
 * Starts an agent in its own process group and forwards the editor's stdio to it and back,
 * byte-exact. Without recorder and validation the bytes are piped as they come; with either,
 * lines are split on `\n` and each line is recorded/checked before it is forwarded, so a capture
 * never misses a frame the other side saw.
 */
export function startProxy(options: ProxyOptions): ProxyHandle {
  const editorIn = options.editorIn ?? process.stdin;
  const editorOut = options.editorOut ?? process.stdout;
  const agentStderr = options.agentStderr ?? process.stderr;
  const log = options.log ?? (() => undefined);
  const agent = spawnRawAgent(options.command, options.args ?? [], {
    cwd: options.cwd,
    env: options.env,
    stderr: agentStderr,
    log,
  });
  const { child, exited, spawnError, stdoutEnded } = agent;
  editorOut.on('error', (e) => log(`editor stdout: ${e.message}`));

  const lineMode = options.recorder !== undefined || options.onViolation !== undefined;
  if (!lineMode) {
    editorIn.pipe(child.stdin);
    child.stdout.pipe(editorOut, { end: false });
  } else {
    const recorder = options.recorder;
    const onViolation = options.onViolation;
    const validator = onViolation ? new CaptureValidator() : undefined;
    const stamp = frameStamper(recorder);
    let initId: unknown;
    let initSeen = false;
    const onLine = (dir: FrameDirection, bytes: Buffer): void => {
      const raw = bytes.toString('utf8');
      // validation needs the message; recording only kind/method/id, which a light scan finds
      const d: DecodedFrame = validator ? decodeFrame(raw) : (scanFrame(raw) ?? decodeFrame(raw));
      const frame = stamp(dir, raw, d, undefined, bytes);
      if (recorder && !initSeen) {
        // the negotiated version goes into the capture as soon as the initialize answer passes
        if (dir === 'editor->agent' && d.kind === 'request' && d.method === 'initialize') initId = d.id;
        else if (dir === 'agent->editor' && d.kind === 'response' && d.id === initId && initId !== undefined) {
          const message = d.message ?? decodeFrame(raw).message;
          const pv = numberAt(message, 'result', 'protocolVersion');
          if (pv !== undefined) {
            initSeen = true;
            recorder.meta({ protocolVersion: pv });
          }
        }
      }
      if (validator && onViolation) for (const v of validator.push(frame, d.message)) onViolation(v);
    };
    const onOversize = (dir: FrameDirection, head: Buffer, bytes: number): void => {
      log(
        `${dir}: a line of ${bytes} bytes (over ${options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES}) was forwarded unchanged and recorded truncated`,
      );
      // only the head is kept: a character cut in two at its end is dropped
      const raw = head.toString('utf8').replace(/\uFFFD$/, '');
      stamp(dir, raw, { kind: 'invalid' }, undefined, undefined, bytes);
    };
    // one capture write per input chunk: every complete line of it is recorded, then it is forwarded
    const batch = recorder ? { begin: () => recorder.cork(), end: () => recorder.uncork() } : undefined;
    const sink = { line: onLine, oversize: onOversize };
    forwardLines(editorIn, child.stdin, 'editor->agent', sink, true, batch, options.maxLineBytes);
    forwardLines(child.stdout, editorOut, 'agent->editor', sink, false, batch, options.maxLineBytes);
    if (validator && onViolation) {
      void exited.then(async () => {
        await stdoutEnded;
        for (const v of validator.finish()) onViolation(v);
      });
    }
  }

  const killAgent = (): Promise<void> => agent.kill(options.killTimeoutMs);
  // the editor closed its side: the agent gets EOF and a bounded time to finish
  editorIn.once('end', () => killAfterEditorClosed(exited, killAgent, log, options.exitTimeoutMs));

  const done = (async (): Promise<ProxyResult> => {
    const r = await exited;
    const failed = spawnError();
    if (failed) {
      log(agent.describeSpawnError(failed));
      return { exitCode: 1, agentExitCode: null, agentSignal: null, error: failed };
    }
    // the group may still hold the agent's children: they must not outlive the proxy
    await killAgent();
    // what the agent wrote before exiting still reaches the editor (bounded: a grandchild may hold the pipe)
    await Promise.race([stdoutEnded, new Promise((res) => setTimeout(res, 1000).unref())]);
    log(describeExit(r));
    options.recorder?.meta({ exitCode: r.exitCode, signal: r.signal });
    return proxyResult(r);
  })();

  return {
    pid: child.pid,
    done,
    stop: async () => {
      await killAgent();
      return done;
    },
  };
}

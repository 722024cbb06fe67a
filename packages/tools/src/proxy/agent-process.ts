import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { describeSpawnError, spawnInProcessGroup, watchChildExit, signalProcessGroup } from '@acp-kit/protocol/rpc';
import type { CaptureWriter } from '../captures/capture.js';
import type { Violation } from '../captures/validate.js';

/** What the proxy, the bridge and their CLI share: the agent to run and the editor's side. */
export interface AgentCommandOptions {
  /** The agent program and its arguments. */
  command: string;
  args?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The editor side (default: this process's stdin / stdout). */
  editorIn?: Readable;
  editorOut?: Writable;
  /** Where the agent's stderr goes (default: this process's stderr, unchanged). */
  agentStderr?: Writable;
  /** Record every frame to this capture (written before the frame is forwarded; the bridge records both legs, see {@link CaptureSide}). */
  recorder?: CaptureWriter;
  /** Check every frame (schema + stateful rules) and report violations here; traffic is never altered. */
  onViolation?: (v: Violation) => void;
  /** The proxy's own log lines (never on the editor's stdout). */
  log?: (line: string) => void;
  /** After the editor closes stdin: how long the agent may take to exit before it is killed (default 5000 ms). */
  exitTimeoutMs?: number;
}

/** How an agent process ended, as the proxy reports it. */
export interface ProxyResult {
  exitCode: number;
  /** The agent's own exit code / signal. */
  agentExitCode: number | null;
  agentSignal: string | null;
  /** Set when the agent could not be started. */
  error?: Error;
}

const SIGNAL_NUMBERS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGTERM: 15,
  SIGPIPE: 13,
  SIGABRT: 6,
  SIGSEGV: 11,
};

/**
 * The result for an agent that exited: its code, or 128 + the signal number when it was killed
 * (what a shell reports, so the proxy is transparent to the editor's exit handling).
 */
export function proxyResult(r: { exitCode: number | null; signal: string | null }): ProxyResult {
  const exitCode = r.exitCode ?? 128 + (SIGNAL_NUMBERS[r.signal ?? ''] ?? 0);
  return { exitCode, agentExitCode: r.exitCode, agentSignal: r.signal };
}

/** The log line for how the agent ended. */
export function describeExit(r: { exitCode: number | null; signal: string | null }): string {
  return r.signal ? `agent was killed by ${r.signal}` : `agent exited with code ${r.exitCode}`;
}

/** A raw agent process (stdio as streams, no transport) in its own process group. */
export interface RawAgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Settles once: the exit, or `null`s when it could not be started (see {@link RawAgentProcess.spawnError}). */
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
  /** Settles when the agent's stdout ended (or it could not start). */
  readonly stdoutEnded: Promise<void>;
  spawnError(): Error | undefined;
  /** Why it could not start, in the one phrasing of the CLI. */
  describeSpawnError(e: Error): string;
  /**
   * SIGTERM to the group, SIGKILL after `killTimeoutMs` (default 2000), and SIGKILL to what is
   * left of the group once the agent is gone: nothing it started outlives the caller.
   */
  kill(killTimeoutMs?: number): Promise<void>;
}

/**
 * Spawns an agent for byte-level forwarding (proxy, client-side replay): its own process group,
 * stdin errors (EPIPE from a dead agent) logged instead of thrown, stderr piped to `stderr`.
 */
export function spawnRawAgent(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stderr: Writable; log: (line: string) => void },
): RawAgentProcess {
  const child = spawnInProcessGroup(command, args, options);
  child.stdin.on('error', (e) => options.log(`agent stdin: ${e.message}`));
  child.stderr.pipe(options.stderr, { end: false });
  const { exited, spawnError } = watchChildExit(child);
  const stdoutEnded = new Promise<void>((resolve) => {
    child.stdout.once('close', resolve);
    child.stdout.once('end', resolve);
    child.once('error', () => resolve());
  });
  let killing: Promise<void> | undefined;
  const kill = (killTimeoutMs = 2000): Promise<void> => {
    killing ??= (async () => {
      if (spawnError() || child.exitCode !== null || child.signalCode !== null) {
        signalProcessGroup(child, 'SIGKILL');
        return;
      }
      signalProcessGroup(child, 'SIGTERM');
      const t = setTimeout(() => signalProcessGroup(child, 'SIGKILL'), killTimeoutMs);
      await exited;
      clearTimeout(t);
      signalProcessGroup(child, 'SIGKILL');
    })();
    return killing;
  };
  return { child, exited, stdoutEnded, spawnError, describeSpawnError: (e) => describeSpawnError(command, e), kill };
}

/**
 * The editor closed its side: the agent (which got EOF) has `exitTimeoutMs` (default 5000) to
 * exit, as with a direct connection, then `kill` runs.
 */
export function killAfterEditorClosed(
  exited: Promise<unknown>,
  kill: () => unknown,
  log: (line: string) => void,
  exitTimeoutMs = 5000,
): void {
  log('editor closed stdin; waiting for the agent to exit');
  const t = setTimeout(() => {
    log(`agent still running ${exitTimeoutMs} ms after stdin closed; killing it`);
    void kill();
  }, exitTimeoutMs);
  t.unref();
  void exited.then(() => clearTimeout(t));
}

import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import type { AnyToolCallContent, SessionUpdate } from '@acp-kit/protocol';
import type { AgentSession, ClientTerminal } from '@acp-kit/agent';
import { abortError } from './model.js';

/** Default cap on the command output kept and shown (bytes). */
export const DEFAULT_OUTPUT_LIMIT = 64 * 1024;

export interface CommandOptions {
  /** Absolute, already sandbox-checked working directory. */
  cwd: string;
  signal: AbortSignal;
  /** Kill the command after this long (default 120 s). */
  timeoutMs?: number;
  outputLimit?: number;
  /** Appends content to the running tool call. */
  progress(content: AnyToolCallContent): Promise<void>;
  /** Sends other turn updates (v2 display terminals). */
  send(update: SessionUpdate): Promise<void>;
}

export interface CommandResult {
  /** The (possibly truncated) combined stdout+stderr. */
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Where the output was shown: a v1 client terminal, a v2 display terminal, or nowhere (text). */
  display: 'client_terminal' | 'display_terminal' | 'text';
  terminalId?: string;
}

/** Runs shell commands for the `run_command` tool. */
export interface CommandRunner {
  /** How commands run on this session. */
  readonly strategy: 'client_terminal' | 'local';
  run(command: string, options: CommandOptions): Promise<CommandResult>;
}

const SHELL = process.platform === 'win32' ? (process.env.ComSpec ?? 'cmd.exe') : '/bin/sh';
const shellArgs = (command: string): string[] =>
  process.platform === 'win32' ? ['/d', '/s', '/c', command] : ['-c', command];

/** Keeps at most `limit` bytes: the head, then notes how much was dropped. */
class OutputBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly limit: number) {}
  push(b: Buffer): Buffer {
    this.total += b.length;
    const room = this.limit - this.kept;
    if (room <= 0) return Buffer.alloc(0);
    const part = b.length > room ? b.subarray(0, room) : b;
    this.chunks.push(part);
    this.kept += part.length;
    return part;
  }
  get truncated(): boolean {
    return this.total > this.kept;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

async function runOnClient(
  session: AgentSession,
  command: string,
  o: CommandOptions,
  limit: number,
): Promise<CommandResult> {
  const services = session.clientServices;
  // createCommandRunner picks this strategy only when the client services have createTerminal
  if (!services.createTerminal) throw new Error('run_command: the client offers no terminal/create');
  const term: ClientTerminal = await services.createTerminal(
    { command: SHELL, args: shellArgs(command), cwd: o.cwd, outputByteLimit: limit },
    { signal: o.signal },
  );
  let timedOut = false;
  try {
    await o.progress({ type: 'terminal', terminalId: term.terminalId });
    const timer = setTimeout(() => {
      timedOut = true;
      void term.kill().catch(() => undefined);
    }, o.timeoutMs ?? 120_000);
    let status;
    try {
      status = await term.waitForExit(o.signal);
    } catch (e) {
      if (o.signal.aborted) {
        await term.kill().catch(() => undefined);
        throw abortError(o.signal);
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
    const out = await term.output();
    return {
      output: out.output,
      truncated: out.truncated,
      exitCode: status.exitCode ?? out.exitStatus?.exitCode ?? null,
      signal: status.signal ?? out.exitStatus?.signal ?? null,
      timedOut,
      display: 'client_terminal',
      terminalId: term.terminalId,
    };
  } finally {
    // ACP-V1-TERM-04: always release, also after kill
    await term.release().catch(() => undefined);
  }
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone */
    }
  }
}

/** Process groups of the local tool commands running now (their leaders' pids). */
const liveGroups = new Set<number>();

/**
 * Signals the process group of every local tool command still running (e.g. SIGTERM when
 * `acp-kit agent` itself is terminated, so no command outlives it).
 */
export function signalToolProcesses(sig: NodeJS.Signals = 'SIGTERM'): void {
  for (const pid of liveGroups) killGroup(pid, sig);
}

/**
 * POSIX wrapper that keeps a tool command reachable when the agent dies hard (SIGKILL, crash):
 * a watcher in the command's process group reads fd 3, a socket to the agent; EOF without the
 * agent's "done" line means the agent is gone, so the watcher SIGKILLs the whole group. The
 * command itself is exec'd, so its pid, exit code and signal are exactly the shell's. The
 * watcher's stdio is /dev/null so it never holds the output pipes open.
 */
const WATCHED = `{ if IFS= read -r m <&3 && [ "$m" = done ]; then :; else kill -KILL 0; fi; } </dev/null >/dev/null 2>&1 &
exec 3<&-; exec ${SHELL} -c "$1"`;

/**
 * The command and whatever holds its output are done: release the watcher of {@link WATCHED} (it
 * holds fd 3, so the child's 'close' waits for it) without killing what the command left in the
 * background.
 */
function releaseWatcherWhenDone(child: ChildProcess): void {
  const fd3 = child.stdio[3];
  const lifeline = fd3 instanceof Socket ? fd3 : null;
  if (!lifeline || !child.stdout || !child.stderr) return;
  lifeline.on('error', () => undefined); // the watcher is gone with its group: nothing to tell
  let pending = 3;
  const release = () => {
    if (--pending === 0) lifeline.end('done\n');
  };
  child.once('exit', release);
  child.stdout.once('close', release);
  child.stderr.once('close', release);
}

async function runLocal(
  session: AgentSession,
  command: string,
  o: CommandOptions,
  limit: number,
): Promise<CommandResult> {
  if (o.signal.aborted) throw abortError(o.signal);
  const v2 = session.client.protocolVersion === 2;
  const terminalId = v2 ? session.newId('term') : undefined;
  // ACP-V2-TERM-13: `terminal/cancel` stops the command (the terminal stays, with its exit status);
  // registered before the terminal is announced, so a cancel can never find it unknown
  let cancel = () => {
    cancelRequested = true;
  };
  let cancelRequested = false;
  const offCancel = terminalId ? session.onCancelTerminal?.(terminalId, () => cancel()) : undefined;
  if (terminalId) {
    // ACP-V2-TERM-05/06: command on the first update, absolute cwd
    await o.send({
      sessionUpdate: 'terminal_update',
      terminalId,
      command,
      cwd: o.cwd,
      ...(offCancel ? { capabilities: { cancel: {} } } : {}),
    });
    await o.progress({ type: 'terminal', terminalId });
  }
  const buf = new OutputBuffer(limit);
  // its own process group, so abort/timeout kill the whole tree (shell + children); on POSIX
  // a watcher in that group kills it if the agent dies without cleaning up (see WATCHED)
  const posix = process.platform !== 'win32';
  const child = spawn(SHELL, posix ? ['-c', WATCHED, 'acp-kit-tool', command] : shellArgs(command), {
    cwd: o.cwd,
    detached: posix,
    stdio: posix ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TERM: process.env.TERM ?? 'dumb' },
  });
  const { stdout, stderr } = child;
  // not reached: both are 'pipe' above
  if (!stdout || !stderr) throw new Error('run_command: the spawned shell has no stdout/stderr pipe');
  if (posix && child.pid !== undefined) liveGroups.add(child.pid);
  if (posix) releaseWatcherWhenDone(child);
  let timedOut = false;
  let aborted = false;
  let sending: Promise<void> = Promise.resolve();
  const onData = (b: Buffer) => {
    const part = buf.push(b);
    if (terminalId && part.length > 0) {
      const data = part.toString('base64');
      // keep chunk order; each chunk is decoded on its own by the client (ACP-V2-TERM-08)
      sending = sending.then(() => o.send({ sessionUpdate: 'terminal_output_chunk', terminalId, data }));
    }
  };
  stdout.on('data', onData);
  stderr.on('data', onData);
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), 1000);
  };
  const onAbort = () => {
    aborted = true;
    stop();
  };
  o.signal.addEventListener('abort', onAbort, { once: true });
  cancel = stop;
  if (cancelRequested) stop();
  const timeout = setTimeout(() => {
    timedOut = true;
    stop();
  }, o.timeoutMs ?? 120_000);
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    clearTimeout(timeout);
    if (killTimer) clearTimeout(killTimer);
    o.signal.removeEventListener('abort', onAbort);
    offCancel?.();
    if (child.pid !== undefined) liveGroups.delete(child.pid);
  });
  await sending;
  if (terminalId) {
    await o.send({
      sessionUpdate: 'terminal_update',
      terminalId,
      exitStatus: { exitCode: exit.code, signal: exit.signal },
    });
  }
  if (aborted) throw abortError(o.signal);
  return {
    output: buf.text(),
    truncated: buf.truncated,
    exitCode: exit.code,
    signal: exit.signal,
    timedOut,
    display: terminalId ? 'display_terminal' : 'text',
    terminalId,
  };
}

/**
 * Picks how commands run: a v1 client that advertised `terminal` runs them itself
 * (ACP-V1-TERM-01); otherwise the agent spawns them and, in v2, mirrors the output into an
 * agent-owned display terminal (ACP-V2-TERM-*).
 */
export function createCommandRunner(session: AgentSession, outputLimit = DEFAULT_OUTPUT_LIMIT): CommandRunner {
  const client =
    session.client.protocolVersion === 1 &&
    session.client.capabilities.terminal === true &&
    typeof session.clientServices.createTerminal === 'function';
  return {
    strategy: client ? 'client_terminal' : 'local',
    run(command, options) {
      const limit = options.outputLimit ?? outputLimit;
      return client ? runOnClient(session, command, options, limit) : runLocal(session, command, options, limit);
    },
  };
}

import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { signalProcessGroup as killGroup, trackProcessGroup, untrackProcessGroup } from '../node/process-group.js';
import { StreamTransport, type StreamTransportOptions } from './stream-transport.js';
import type { CloseInfo, Transport, TransportHandlers } from './transport.js';

export interface SpawnAgentOptions extends StreamTransportOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Lines of stderr kept for error messages (default 20). */
  stderrLines?: number;
  /** Called with each stderr chunk (the agent's logs, ACP-ALL-TRANS-07). Default: kept, not printed. */
  onStderr?: (text: string) => void;
  /** Grace period between SIGTERM and SIGKILL on close (default 2000 ms). */
  killTimeoutMs?: number;
}

/** An agent process and the transport over its stdio. */
export interface AgentProcess {
  readonly process: ChildProcess;
  readonly transport: Transport;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
  /** The last stderr lines. */
  stderrTail(): string;
  /** Terminates the agent's whole process group (SIGTERM, then SIGKILL). */
  kill(): Promise<void>;
}

/**
 * Spawns a program with piped stdio as the leader of its own process group (outside Windows), and
 * tracks the group so the exit hook kills it if we exit first: an agent and what it starts are
 * never orphaned.
 */
export function spawnInProcessGroup(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
): ChildProcessWithoutNullStreams {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
  });
  trackProcessGroup(child);
  return child;
}

/**
 * Spawns an agent (ACP-ALL-TRANS-03) in its own process group and connects a transport to
 * its stdio. When the connection closes the whole group is terminated; when the agent dies,
 * the close reason carries its exit code, signal and the tail of its stderr.
 */
export function spawnAgent(
  command: string,
  args: readonly string[] = [],
  options: SpawnAgentOptions = {},
): AgentProcess {
  const child = spawnInProcessGroup(command, args, options);
  const maxLines = options.stderrLines ?? 20;
  let tail: string[] = [];
  let partial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    options.onStderr?.(text);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    if (partial.length > 4000) partial = partial.slice(-4000);
    tail.push(...lines);
    if (tail.length > maxLines) tail = tail.slice(-maxLines);
  });
  const stderrTail = (): string => [...tail, ...(partial ? [partial] : [])].slice(-maxLines).join('\n');

  const { exited, spawnError } = watchChildExit(child);

  const inner = new StreamTransport(child.stdout, child.stdin, options);
  // stdin write errors (EPIPE) surface through the close path, not as crashes
  child.stdin.on('error', () => undefined);

  const describeExit = async (fallback: CloseInfo): Promise<CloseInfo> => {
    const r = await Promise.race([exited, new Promise<null>((res) => setTimeout(() => res(null), 1000).unref())]);
    const failed = spawnError();
    if (failed) {
      return { reason: describeSpawnError(command, failed), error: failed, stderrTail: stderrTail() };
    }
    if (!r) return { ...fallback, stderrTail: stderrTail() };
    const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exitCode}`;
    return { reason: `agent process ${how}`, exitCode: r.exitCode, signal: r.signal, stderrTail: stderrTail() };
  };

  let closing: Promise<void> | undefined;
  const kill = (): Promise<void> => {
    if (!closing) {
      closing = (async () => {
        if (spawnError()) return;
        const leaderRunning = child.exitCode === null && child.signalCode === null;
        if (leaderRunning) {
          try {
            child.stdin.end();
          } catch {
            /* ignore */
          }
          killGroup(child, 'SIGTERM');
          const t = setTimeout(() => killGroup(child, 'SIGKILL'), options.killTimeoutMs ?? 2000);
          t.unref();
          await exited;
          clearTimeout(t);
        }
        // The agent is gone, but processes it started may still hold its group (e.g. a tool
        // command that ignores SIGTERM): we are closing, so none of them may outlive us.
        killGroup(child, 'SIGKILL');
      })();
    }
    return closing;
  };

  const transport: Transport = {
    start(handlers: TransportHandlers) {
      let reported = false;
      inner.start({
        onMessage: handlers.onMessage,
        onInvalidLine: handlers.onInvalidLine,
        onTooDeep: handlers.onTooDeep,
        onClose(info) {
          if (reported) return;
          reported = true;
          if (info.reason === 'closed locally') {
            void kill();
            handlers.onClose(info);
            return;
          }
          void describeExit(info).then((full) => {
            handlers.onClose(full);
            void kill();
          });
        },
      });
    },
    send: (m) => inner.send(m),
    whenWritable: () => inner.whenWritable(),
    flush: () => inner.flush(),
    close: (info) => inner.close(info ?? { reason: 'closed locally' }),
  };

  return { process: child, transport, exited, stderrTail, kill };
}

/** How a spawned child ended: `exited` settles once (exit, or `null`s when it could not be started). */
export interface ChildExit {
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
  /** the error that kept the child from starting, if any */
  spawnError(): Error | undefined;
}

/**
 * Watches a child started in its own (tracked) process group: settles on `exit` or on a spawn
 * `error`, untracking the group either way. Shared by `spawnAgent` and the proxy.
 */
export function watchChildExit(child: ChildProcess): ChildExit {
  let failed: Error | undefined;
  const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => {
    child.once('error', (e) => {
      failed = e;
      untrackProcessGroup(child);
      resolve({ exitCode: null, signal: null });
    });
    child.once('exit', (exitCode, signal) => {
      untrackProcessGroup(child);
      resolve({ exitCode, signal });
    });
  });
  return { exited, spawnError: () => failed };
}

/** The one phrasing of a failed spawn: "agent command not found: x" or "could not start agent x: why". */
export function describeSpawnError(command: string, e: Error): string {
  return 'code' in e && e.code === 'ENOENT'
    ? `agent command not found: ${command}`
    : `could not start agent ${command}: ${e.message}`;
}

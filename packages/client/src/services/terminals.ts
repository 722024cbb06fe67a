import { signalProcessGroup, trackProcessGroup, untrackProcessGroup } from '@acp-kit/protocol/rpc';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { accessSync, constants as fsConstants, promises as fsp, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { AcpError, type TerminalExitStatus, type TerminalOutputResponse } from '@acp-kit/protocol';
import { TailByteBuffer } from './output-buffer.js';

/** Parameters of `terminal/create` the manager uses (`_meta` is ignored). */
export interface CreateTerminalParams {
  /** Owning session; when given, later calls that pass a `sessionId` must match it. */
  sessionId?: string;
  command: string;
  args?: string[] | null;
  env?: Array<{ name: string; value: string }> | null;
  /** absolute; default: {@link TerminalManagerOptions.defaultCwd} */
  cwd?: string | null;
  /** newest bytes kept; default {@link TerminalManagerOptions.defaultOutputByteLimit} */
  outputByteLimit?: number | null;
}

/** Options of {@link TerminalManager}. */
export interface TerminalManagerOptions {
  /** When given, a terminal's `cwd` must resolve inside one of these roots (ACP-ALL-SESS-04). */
  roots?: readonly string[];
  /** `cwd` when the request has none (default: the first root, else `process.cwd()`). */
  defaultCwd?: string;
  /** Base environment the request's `env` is layered onto (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Output cap when the request sets no `outputByteLimit` (default 16 MiB; protects the client's memory). */
  defaultOutputByteLimit?: number;
  /**
   * The most output one terminal retains, whatever `outputByteLimit` the agent asks for (default
   * 64 MiB): a larger request is lowered to it (the output then reports `truncated` earlier), so
   * an agent cannot make the client hold gigabytes per terminal times {@link maxTerminals}.
   */
  maxOutputByteLimit?: number;
  /**
   * Maximum unreleased terminals at once (default 64); `terminal/create` beyond it fails with
   * -32603 naming the limit, so a runaway agent cannot fork without bound.
   */
  maxTerminals?: number;
  /** Grace period between SIGTERM and SIGKILL on kill/release (default 2000 ms). */
  killTimeoutMs?: number;
  /**
   * `auto` (default): a request with no `args` whose `command` contains whitespace or shell
   * syntax is run as `/bin/sh -c <command>` (many agents send whole command lines);
   * `never`: the command is always executed directly.
   */
  shell?: 'auto' | 'never';
  /** Live output for UIs (ACP-V1-TOOL-08): decoded text in arrival order, untruncated. */
  onOutput?: (terminalId: string, text: string) => void;
  /** Called once when a terminal's command has exited. */
  onExit?: (terminalId: string, status: TerminalExitStatus) => void;
}

/** Read-only facts about a terminal, for UIs and logs. */
export interface TerminalInfo {
  terminalId: string;
  sessionId?: string;
  /** `command` as the agent requested it */
  command: string;
  /** `args` as the agent requested them (`[]` when none) */
  requestedArgs: string[];
  /** what was actually executed (after the `/bin/sh -c` decision) */
  file: string;
  args: string[];
  cwd: string;
  pid?: number;
  exitStatus?: TerminalExitStatus;
}

/**
 * A client-executed (v1 `terminal/*`) command as the user should see it: what the agent asked
 * to run, where, and its output so far. Returned by `ClientSession.clientTerminal` and
 * {@link TerminalManager.snapshot}.
 */
export interface ClientTerminalInfo {
  terminalId: string;
  /** The session that created it. */
  sessionId?: string;
  /** `command` as the agent sent it (a whole command line when it sent no `args`). */
  command: string;
  /** `args` as the agent sent them (`[]` when none). */
  args: string[];
  /** Absolute working directory the command runs in. */
  cwd: string;
  /**
   * The retained output so far — stdout and stderr interleaved, the newest `outputByteLimit`
   * bytes — exactly what `terminal/output` would answer now.
   */
  output: string;
  /** True once bytes were dropped from the front of {@link output} (ACP-V1-TERM-03). */
  truncated: boolean;
  /** Set once the command has exited (ACP-V1-TERM-05). */
  exitStatus?: TerminalExitStatus;
}

const SHELL_SYNTAX = /[\s|&;<>()$`*?~\\"'{}[\]#=]/;

function isWithin(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Looks `command` up like execvp(3) does, in the `PATH` the child will get. */
function findExecutable(command: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((d) => path.join(d, command));
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) {
        accessSync(c, fsConstants.X_OK);
        return c;
      }
    } catch {
      /* next */
    }
  }
  return undefined;
}

/**
 * Environment variable every terminal command gets, with a value unique to the terminal. It is
 * inherited by everything the command starts, also by daemons that left the process group
 * (`setsid`, double fork), so on Linux they can still be found and killed on kill/release.
 */
export const TERMINAL_MARKER_ENV = 'ACP_KIT_TERMINAL_ID';

/**
 * Linux: SIGKILLs every process of ours whose initial environment carries `marker`
 * (`/proc/<pid>/environ`), repeating while new ones appear (a daemon forking as it dies).
 * Elsewhere, and for processes that replaced their environment or run as another user, the
 * process group kill is all there is: such escapees cannot be tracked.
 */
async function killMarkedProcesses(marker: string): Promise<void> {
  if (process.platform !== 'linux') return;
  const needle = Buffer.from(`${TERMINAL_MARKER_ENV}=${marker}\0`);
  for (let round = 0; round < 10; round++) {
    const pids = await fsp.readdir('/proc').catch((): string[] => []);
    let found = 0;
    await Promise.all(
      pids.map(async (name) => {
        const pid = Number(name);
        if (!Number.isInteger(pid) || pid === process.pid) return;
        const env = await fsp.readFile(`/proc/${pid}/environ`).catch(() => undefined);
        if (!env) return;
        const at = env.indexOf(needle);
        if (at < 0 || (at > 0 && env[at - 1] !== 0)) return;
        try {
          process.kill(pid, 'SIGKILL');
          found++;
        } catch {
          /* already gone */
        }
      }),
    );
    if (found === 0) return;
  }
}

class Terminal {
  readonly buffer: TailByteBuffer;
  exitStatus: TerminalExitStatus | undefined;
  /** set when stdout and stderr are both closed: no straggler of the group holds them */
  stdioClosed = false;
  readonly exited: Promise<TerminalExitStatus>;
  private resolveExit!: (s: TerminalExitStatus) => void;
  private killing: Promise<void> | undefined;

  constructor(
    readonly info: TerminalInfo,
    readonly child: ChildProcessByStdio<null, Readable, Readable>,
    limit: number,
    private readonly killTimeoutMs: number,
    /** value of {@link TERMINAL_MARKER_ENV} in the command's environment */
    private readonly marker: string,
  ) {
    this.buffer = new TailByteBuffer(limit);
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
  }

  finish(status: TerminalExitStatus): void {
    if (this.exitStatus) return;
    this.exitStatus = status;
    this.info.exitStatus = status;
    this.forgetIfGone();
    this.resolveExit(status);
  }

  /** Stops tracking the group for the exit hook once nothing of it can be running. */
  forgetIfGone(): void {
    // a straggler holding the pipes keeps the group tracked, so client exit still kills it
    if (this.exitStatus && this.stdioClosed) untrackProcessGroup(this.child);
  }

  get running(): boolean {
    return this.exitStatus === undefined;
  }

  /** SIGTERM to the group, SIGKILL after the grace period; resolves once the command exited. */
  kill(): Promise<void> {
    if (!this.running) {
      // the leader is gone but something of its group still holds the output pipes open
      if (!this.stdioClosed) signalProcessGroup(this.child, 'SIGKILL');
      untrackProcessGroup(this.child);
      this.sweep();
      return Promise.resolve();
    }
    this.killing ??= (async () => {
      signalProcessGroup(this.child, 'SIGTERM');
      const t = setTimeout(() => signalProcessGroup(this.child, 'SIGKILL'), this.killTimeoutMs);
      t.unref();
      await this.exited;
      clearTimeout(t);
      if (!this.stdioClosed) signalProcessGroup(this.child, 'SIGKILL');
      untrackProcessGroup(this.child);
      this.sweep();
    })();
    return this.killing;
  }

  /**
   * Looks for escaped daemons (see {@link killMarkedProcesses}) in the background: the scan reads
   * every process's environment, too slow for the answer to `terminal/kill` (a cancel waits on
   * it); {@link TerminalManager.releaseAll} awaits it.
   */
  sweep(): void {
    this.sweeping = (this.sweeping ?? Promise.resolve()).then(() => killMarkedProcesses(this.marker));
  }

  /** the daemon sweep under way, if any */
  sweeping: Promise<void> | undefined;
}

/**
 * Client-executed terminals for `terminal/*` (v1, ACP-V1-TERM-02..08).
 *
 * - {@link create} returns the `terminalId` at once; the command runs in the background in its
 *   own process group, with stdin closed (`/dev/null`) and stdout + stderr interleaved into
 *   one output buffer in arrival order.
 * - The command is executed without a shell (`command` + `args`), except that with no `args`
 *   a `command` containing whitespace or shell syntax runs as `/bin/sh -c <command>`
 *   (option `shell: 'never'` disables that). POSIX only.
 * - `outputByteLimit` keeps the newest bytes, dropping the oldest, and never returns a broken
 *   UTF-8 character (ACP-V1-TERM-03); `truncated` reports that bytes were dropped.
 * - `exitStatus` appears only after the command has exited (ACP-V1-TERM-05).
 * - {@link kill} stops the whole process group but keeps output and status until
 *   {@link release} (ACP-V1-TERM-07); `release` kills a running command and invalidates the id
 *   (ACP-V1-TERM-08). Unknown or released ids fail with -32002 naming the `terminalId`.
 * - {@link releaseAll} / {@link releaseSession} for session close and client exit; additionally
 *   every live process group is SIGKILLed when the client process exits.
 * - Escaped daemons: a command that starts a process in a new session or group (`setsid`,
 *   double fork) is out of reach of the group kill. On Linux, kill/release also SIGKILL every
 *   process of this user whose environment still carries the terminal's
 *   {@link TERMINAL_MARKER_ENV}; a process that replaced its environment (`env -i`), runs as
 *   another user, or any escapee on other platforms cannot be tracked, and the client's exit
 *   hook reaches process groups only.
 */
export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();
  private readonly options: TerminalManagerOptions;
  private readonly realRoots: string[] | undefined;
  private counter = 0;
  private readonly idPrefix = randomBytes(3).toString('hex');

  constructor(options: TerminalManagerOptions = {}) {
    this.options = options;
    if (options.roots) {
      for (const r of options.roots) {
        if (!path.isAbsolute(r)) throw new TypeError(`TerminalManager root must be an absolute path: ${r}`);
      }
      this.realRoots = options.roots.map((r) => realpathOr(path.resolve(r)));
    }
  }

  /**
   * `terminal/create`: validates the request, starts the command and returns its id
   * immediately (ACP-V1-TERM-02). Throws `AcpError` -32602 for a bad `command`, `args`, `env`,
   * `cwd` (relative, missing, not a directory, outside the roots) or `outputByteLimit`, and
   * when the command is not found on `PATH`.
   */
  create(req: CreateTerminalParams): { terminalId: string } {
    if (!req || typeof req.command !== 'string' || req.command.trim() === '') {
      throw AcpError.invalidParams('params.command must be a non-empty string');
    }
    if (req.command.includes('\0')) throw AcpError.invalidParams('params.command must not contain NUL characters');
    const args = req.args ?? [];
    if (!Array.isArray(args)) throw AcpError.invalidParams('params.args must be an array of strings');
    args.forEach((a, i) => {
      if (typeof a !== 'string' || a.includes('\0'))
        throw AcpError.invalidParams(`params.args[${i}] must be a string without NUL characters`);
    });
    const envList = req.env ?? [];
    if (!Array.isArray(envList)) throw AcpError.invalidParams('params.env must be an array of {name, value}');
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) };
    envList.forEach((v, i) => {
      if (
        !v ||
        typeof v.name !== 'string' ||
        v.name === '' ||
        /[=\0]/.test(v.name) ||
        typeof v.value !== 'string' ||
        v.value.includes('\0')
      ) {
        throw AcpError.invalidParams(
          `params.env[${i}] must be {name: non-empty string without "=", value: string} without NUL characters`,
        );
      }
      env[v.name] = v.value;
    });

    const cwd = this.checkCwd(req.cwd);
    const limit = this.checkLimit(req.outputByteLimit);

    const useShell = this.options.shell !== 'never' && args.length === 0 && SHELL_SYNTAX.test(req.command.trim());
    const file = useShell ? '/bin/sh' : req.command;
    const argv = useShell ? ['-c', req.command] : [...args];
    if (!useShell && !findExecutable(file, env, cwd)) {
      throw AcpError.invalidParams(`params.command: command not found or not executable: ${file}`, { command: file });
    }

    const max = this.options.maxTerminals ?? 64;
    if (this.terminals.size >= max) {
      throw AcpError.internal(
        `too many terminals: ${this.terminals.size} are open (limit ${max}); release finished terminals first (terminal/release)`,
        {
          limit: max,
        },
      );
    }

    const terminalId = `term_${this.idPrefix}_${++this.counter}`;
    const marker = `${terminalId}.${process.pid}`;
    env[TERMINAL_MARKER_ENV] = marker;
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(file, argv, {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
    } catch (e) {
      // synchronous spawn failures are argument problems (e.g. NUL bytes in env values)
      throw AcpError.invalidParams(`could not start ${file}: ${e instanceof Error ? e.message : String(e)}`, {
        command: file,
      });
    }
    trackProcessGroup(child);
    const info: TerminalInfo = {
      terminalId,
      sessionId: req.sessionId,
      command: req.command,
      requestedArgs: [...args],
      file,
      args: argv,
      cwd,
      pid: child.pid,
    };
    const term = new Terminal(info, child, limit, this.options.killTimeoutMs ?? 2000, marker);
    this.terminals.set(terminalId, term);
    this.wire(term);
    return { terminalId };
  }

  private checkCwd(raw: string | null | undefined): string {
    const cwd = raw ?? this.options.defaultCwd ?? this.options.roots?.[0] ?? process.cwd();
    if (typeof cwd !== 'string' || !path.isAbsolute(cwd)) {
      throw AcpError.invalidParams(`params.cwd must be an absolute path (ACP-V1-TERM-09), got ${JSON.stringify(cwd)}`, {
        cwd,
      });
    }
    let st;
    try {
      st = statSync(cwd);
    } catch {
      throw AcpError.invalidParams(`params.cwd ${cwd} does not exist`, { cwd });
    }
    if (!st.isDirectory()) throw AcpError.invalidParams(`params.cwd ${cwd} is not a directory`, { cwd });
    if (this.realRoots) {
      const real = realpathOr(cwd);
      if (!this.realRoots.some((r) => isWithin(r, real))) {
        throw AcpError.invalidParams(
          `params.cwd ${cwd} is outside the session roots (${(this.options.roots ?? []).join(', ')})`,
          {
            cwd,
            roots: [...(this.options.roots ?? [])],
          },
        );
      }
    }
    return path.resolve(cwd);
  }

  private checkLimit(raw: number | null | undefined): number {
    if (raw === undefined || raw === null) return this.options.defaultOutputByteLimit ?? 16 * 1024 * 1024;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0) {
      throw AcpError.invalidParams(
        `params.outputByteLimit must be a non-negative integer or null, got ${JSON.stringify(raw)}`,
      );
    }
    return Math.min(raw, this.options.maxOutputByteLimit ?? 64 * 1024 * 1024);
  }

  private wire(term: Terminal): void {
    const { child, info } = term;
    const decoder = this.options.onOutput ? new StringDecoder('utf8') : undefined;
    // a throwing UI callback must not crash the client from inside a stream event
    const emitOutput = (text: string): void => {
      try {
        this.options.onOutput?.(info.terminalId, text);
      } catch {
        /* ignored */
      }
    };
    let open = 2;
    let exit: TerminalExitStatus | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const done = (): void => {
      if (!exit || !term.running) return;
      if (graceTimer) clearTimeout(graceTimer);
      if (decoder) {
        const rest = decoder.end();
        if (rest) emitOutput(rest);
      }
      const status = exit;
      term.finish(status);
      try {
        this.options.onExit?.(info.terminalId, { ...status });
      } catch {
        /* ignored */
      }
    };
    const onData = (chunk: Buffer): void => {
      term.buffer.append(chunk);
      if (decoder) {
        const text = decoder.write(chunk);
        if (text) emitOutput(text);
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', onData);
      stream.once('close', () => {
        if (--open === 0) {
          term.stdioClosed = true;
          done();
          term.forgetIfGone();
        }
      });
    }
    child.once('exit', (code, signal) => {
      exit = { exitCode: code, signal: signal ?? null };
      // report the exit only after the pipes drained, so the final output is complete; but a
      // background job that inherited the pipes must not hold the status back forever
      if (open === 0) done();
      else {
        graceTimer = setTimeout(done, 200);
        graceTimer.unref();
      }
    });
    child.once('error', (e: NodeJS.ErrnoException) => {
      // spawn failure after the PATH check (e.g. EACCES, ENOEXEC): report it like a shell would
      term.buffer.append(Buffer.from(`acp-kit: could not start ${info.file}: ${e.code ?? e.message}\n`));
      exit = { exitCode: e.code === 'ENOENT' ? 127 : 126, signal: null };
      term.stdioClosed = true;
      done();
    });
  }

  private get(terminalId: unknown, sessionId?: string): Terminal {
    const term = typeof terminalId === 'string' ? this.terminals.get(terminalId) : undefined;
    if (!term || (sessionId !== undefined && term.info.sessionId !== undefined && term.info.sessionId !== sessionId)) {
      throw AcpError.resourceNotFound(`terminal ${String(terminalId)} (unknown or released)`, { terminalId });
    }
    return term;
  }

  /** `terminal/output`: output so far, `truncated`, and `exitStatus` once exited (ACP-V1-TERM-05). */
  output(terminalId: string, sessionId?: string): TerminalOutputResponse {
    const term = this.get(terminalId, sessionId);
    const exited = !term.running;
    const res: TerminalOutputResponse = { output: term.buffer.read(exited), truncated: term.buffer.truncated };
    if (term.exitStatus) res.exitStatus = { ...term.exitStatus };
    return res;
  }

  /**
   * `terminal/wait_for_exit`: resolves with `{exitCode, signal}` when the command exits
   * (ACP-V1-TERM-06). When `signal` aborts it rejects with `AcpError` -32800.
   */
  async waitForExit(terminalId: string, signal?: AbortSignal, sessionId?: string): Promise<TerminalExitStatus> {
    const term = this.get(terminalId, sessionId);
    if (!signal) return { ...(await term.exited) };
    if (signal.aborted) throw AcpError.cancelled(`wait for terminal ${terminalId}`);
    return new Promise<TerminalExitStatus>((resolve, reject) => {
      const onAbort = (): void => reject(AcpError.cancelled(`wait for terminal ${terminalId}`));
      signal.addEventListener('abort', onAbort, { once: true });
      void term.exited.then((s) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ ...s });
      });
    });
  }

  /**
   * `terminal/kill`: stops the command's process group (SIGTERM, SIGKILL after the grace
   * period) and resolves once it exited. Output and exit status stay available until
   * {@link release} (ACP-V1-TERM-07). Killing an exited terminal is a no-op.
   */
  async kill(terminalId: string, sessionId?: string): Promise<void> {
    await this.get(terminalId, sessionId).kill();
  }

  /**
   * `terminal/release`: invalidates the id at once, then kills the command if it still runs
   * and resolves when it is gone (ACP-V1-TERM-08).
   */
  async release(terminalId: string, sessionId?: string): Promise<void> {
    const term = this.get(terminalId, sessionId);
    this.terminals.delete(terminalId);
    await term.kill();
  }

  /** Releases every terminal of one session (on `session/close` or when the session ends). */
  async releaseSession(sessionId: string): Promise<void> {
    const ids = [...this.terminals.entries()].filter(([, t]) => t.info.sessionId === sessionId).map(([id]) => id);
    await Promise.all(ids.map((id) => this.release(id)));
  }

  /** Releases every terminal (client shutdown): resolves when all process groups are gone. */
  async releaseAll(): Promise<void> {
    const all = [...this.terminals.values()];
    await Promise.all([...this.terminals.keys()].map((id) => this.release(id)));
    await Promise.all(all.map((t) => t.sweeping));
  }

  /** Facts about a live (unreleased) terminal, or `undefined`. */
  info(terminalId: string): TerminalInfo | undefined {
    const t = this.terminals.get(terminalId);
    return t ? { ...t.info, args: [...t.info.args], requestedArgs: [...t.info.requestedArgs] } : undefined;
  }

  /** The requested command, cwd, output so far and exit status of an unreleased terminal, or `undefined`. */
  snapshot(terminalId: string): ClientTerminalInfo | undefined {
    const t = this.terminals.get(terminalId);
    if (!t) return undefined;
    const { output, truncated, exitStatus } = this.output(terminalId);
    const out: ClientTerminalInfo = {
      terminalId,
      command: t.info.command,
      args: [...t.info.requestedArgs],
      cwd: t.info.cwd,
      output,
      truncated,
    };
    if (t.info.sessionId !== undefined) out.sessionId = t.info.sessionId;
    if (exitStatus) out.exitStatus = exitStatus;
    return out;
  }

  /** Ids of all unreleased terminals. */
  ids(): string[] {
    return [...this.terminals.keys()];
  }
}

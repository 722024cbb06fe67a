import { ConnectionClosedError, type CloseInfo, type Transport, type TransportHandlers } from '@acp-kit/protocol/rpc';
import type { AgentTarget } from './options.js';

/** Why {@link ConnectAbortedError} was thrown. */
export type ConnectAbortReason = 'timeout' | 'aborted';

/**
 * `connect` gave up before `initialize` completed: `ClientOptions.initializeTimeoutMs` elapsed
 * (`reason: 'timeout'`) or `ClientOptions.signal` aborted (`reason: 'aborted'`, the signal's
 * reason is the `cause`). A spawned agent's process group has been killed by the time this is
 * thrown.
 */
export class ConnectAbortedError extends Error {
  constructor(
    readonly reason: ConnectAbortReason,
    /** The agent command line as spawned, or `"the given transport"`. */
    readonly agent: string,
    /** The timeout that elapsed (`reason: 'timeout'`). */
    readonly timeoutMs?: number,
    options?: { cause?: unknown },
  ) {
    super(
      reason === 'timeout'
        ? `agent did not answer initialize within ${formatDuration(timeoutMs ?? 0)} (${agent})`
        : `connecting was aborted before the agent answered initialize (${agent})`,
      options,
    );
    this.name = 'ConnectAbortedError';
  }
}

/** `60 s`, `1.5 s`, `200 ms`. */
function formatDuration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** The agent as shown in messages: its command line (arguments with spaces quoted). */
export function describeTarget(target: AgentTarget): string {
  if (target.command === undefined) return 'the given transport';
  return [target.command, ...(target.args ?? [])]
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))
    .join(' ');
}

/**
 * Waits for `initialized`, rejecting with {@link ConnectAbortedError} when `timeoutMs` elapses
 * or `signal` aborts first. The caller tears the connection down on rejection.
 */
export function untilInitialized(
  initialized: Promise<void>,
  agent: string,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<void> {
  if (!signal && timeoutMs === undefined) return initialized;
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      settle();
      reject(new ConnectAbortedError('aborted', agent, undefined, { cause: signal?.reason }));
    };
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        settle();
        reject(new ConnectAbortedError('timeout', agent, timeoutMs));
      }, timeoutMs);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    initialized.then(
      () => (settle(), resolve()),
      (e: unknown) => (settle(), reject(e)),
    );
  });
}

/**
 * How long `connect` keeps waiting after the agent wrote a non-JSON line to stdout: when no valid
 * JSON-RPC message follows within this grace, the agent is taken to be broken (a banner or log
 * line on stdout, then silence) and `connect` rejects with {@link AgentStartupError} at once
 * instead of waiting for `initializeTimeoutMs`. A valid message within the grace (e.g. the
 * initialize answer right after a stray log line) keeps the connection.
 */
export const NON_JSON_STDOUT_GRACE_MS = 1000;

/** What went wrong while starting: see {@link AgentStartupError.kind}. */
export type AgentStartupFailure = 'non-json-stdout' | 'exited' | 'closed';

/**
 * The agent failed before answering `initialize`, thrown by `connect` (an agent must write only
 * ACP messages to stdout, ACP-ALL-TRANS-05):
 * - `kind: 'non-json-stdout'`: it wrote a line to stdout that is not JSON and no valid JSON-RPC
 *   message followed within {@link NON_JSON_STDOUT_GRACE_MS} (`firstNonJsonLine` quotes it);
 * - `kind: 'exited'`: the process ended (`exitCode` / `signal`);
 * - `kind: 'closed'`: the connection closed without an exit status (a given transport closed, or
 *   the agent could not be started: the message is then `Connection closed: <reason>`, e.g.
 *   `agent command not found: my-agent`).
 * `stdoutTail` and `stderrTail` hold the last lines the agent wrote. It is a
 * {@link ConnectionClosedError}, so code that handles that keeps working.
 */
export class AgentStartupError extends ConnectionClosedError {
  /** The agent command line as spawned, or `"the given transport"`. */
  readonly agent: string;
  readonly kind: AgentStartupFailure;
  /** The first stdout line that was not JSON (cut to 200 characters), if any. */
  readonly firstNonJsonLine: string | undefined;
  /** Exit code of the agent process (`kind: 'exited'`), else `null`. */
  readonly exitCode: number | null;
  /** Signal that killed the agent process (`kind: 'exited'`), else `null`. */
  readonly signal: string | null;
  /** The last lines the agent wrote to stdout (up to 5, each cut to 200 characters). */
  readonly stdoutTail: readonly string[];
  /** The last lines the agent wrote to stderr (`""` when none or unknown). */
  readonly stderrTail: string;

  constructor(init: {
    kind: AgentStartupFailure;
    agent: string;
    firstNonJsonLine?: string;
    stdoutTail: readonly string[];
    info: CloseInfo;
  }) {
    super(init.info);
    this.name = 'AgentStartupError';
    this.agent = init.agent;
    this.kind = init.kind;
    this.firstNonJsonLine = init.firstNonJsonLine;
    this.exitCode = init.info.exitCode ?? null;
    this.signal = init.info.signal ?? null;
    this.stdoutTail = init.stdoutTail;
    this.stderrTail = init.info.stderrTail ?? '';
    let msg: string;
    if (init.kind === 'closed') {
      // e.g. `Connection closed: agent command not found: my-agent`: the reason says it all
      this.message =
        this.stdoutTail.length > 0
          ? `${this.message}\n--- last stdout lines ---\n${this.stdoutTail.join('\n')}`
          : this.message;
      return;
    }
    if (init.kind === 'non-json-stdout') {
      msg = `the agent wrote a line that is not JSON to stdout and then no JSON-RPC message within ${formatDuration(NON_JSON_STDOUT_GRACE_MS)}: ${JSON.stringify(init.firstNonJsonLine)} (${init.agent}). stdout must carry only JSON-RPC messages: check the command starts the agent in ACP mode, and have it log to stderr`;
    } else {
      const how = this.signal ? `was killed by ${this.signal}` : `exited with code ${this.exitCode}`;
      msg = `the agent ${how} before answering initialize (${init.agent})`;
    }
    if (this.stdoutTail.length > 0) msg += `\n--- last stdout lines ---\n${this.stdoutTail.join('\n')}`;
    if (this.stderrTail) msg += `\n--- last stderr lines ---\n${this.stderrTail}`;
    this.message = msg;
  }
}

/**
 * Watches a transport while `connect` waits for `initialize`: remembers the last stdout lines,
 * fails fast on a non-JSON line that no valid message follows, and turns a close into
 * {@link AgentStartupError}. After {@link StartupWatch.stop} it only passes messages through.
 */
export interface StartupWatch {
  /** The transport to hand to the connection. */
  readonly transport: Transport;
  /** `initialized`, or the startup failure if one comes first. */
  guard(initialized: Promise<void>): Promise<void>;
  stop(): void;
}

const STDOUT_TAIL = 5;
const cut = (s: string): string => (s.length > 200 ? s.slice(0, 200) + '…' : s);

/** Creates the {@link StartupWatch} for `transport` (the agent described as `agent` in messages). */
export function watchStartup(inner: Transport, agent: string, stderrTail?: () => string): StartupWatch {
  let watching = true;
  let firstNonJson: string | undefined;
  let tail: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failure: AgentStartupError | undefined;
  let rejectFailed!: (e: AgentStartupError) => void;
  const failed = new Promise<never>((_, reject) => (rejectFailed = reject));
  const fail = (e: AgentStartupError): void => {
    failure ??= e;
    rejectFailed(e);
  };
  failed.catch(() => undefined);
  const remember = (line: string): void => {
    tail.push(cut(line));
    if (tail.length > STDOUT_TAIL) tail = tail.slice(-STDOUT_TAIL);
  };
  const stop = (): void => {
    watching = false;
    clearTimeout(timer);
    timer = undefined;
  };
  const transport: Transport = {
    start(handlers: TransportHandlers) {
      inner.start({
        onMessage(m) {
          if (watching) {
            remember(safeStringify(m));
            // a valid JSON-RPC message: the agent speaks the protocol after all
            if (isJsonRpc(m)) {
              clearTimeout(timer);
              timer = undefined;
            }
          }
          handlers.onMessage(m);
        },
        onInvalidLine(info) {
          if (watching) {
            remember(info.line);
            firstNonJson ??= cut(info.line);
            timer ??= setTimeout(() => {
              stop();
              fail(
                new AgentStartupError({
                  kind: 'non-json-stdout',
                  agent,
                  firstNonJsonLine: firstNonJson,
                  stdoutTail: tail,
                  info: { reason: 'the agent wrote non-JSON to stdout', stderrTail: stderrTail?.() },
                }),
              );
            }, NON_JSON_STDOUT_GRACE_MS);
          }
          handlers.onInvalidLine(info);
        },
        onTooDeep: handlers.onTooDeep,
        onClose(info) {
          if (watching) {
            stop();
            const exited = info.exitCode !== undefined || (info.signal !== undefined && info.signal !== null);
            fail(
              new AgentStartupError({
                kind: exited ? 'exited' : 'closed',
                agent,
                firstNonJsonLine: firstNonJson,
                stdoutTail: tail,
                info,
              }),
            );
          }
          handlers.onClose(info);
        },
      });
    },
    send: (m) => inner.send(m),
    whenWritable: () => inner.whenWritable(),
    flush: () => inner.flush(),
    close: (info) => inner.close(info),
  };
  return {
    transport,
    // the startup error wins over the ConnectionClosedError the pending initialize rejects with
    guard: (initialized) =>
      Promise.race([
        failed,
        initialized.catch((e: unknown) => {
          throw failure ?? e;
        }),
      ]),
    stop,
  };
}

function isJsonRpc(m: unknown): boolean {
  if (Array.isArray(m)) return m.length > 0;
  return m !== null && typeof m === 'object' && 'jsonrpc' in m && m.jsonrpc === '2.0';
}

function safeStringify(m: unknown): string {
  try {
    return JSON.stringify(m) ?? String(m);
  } catch {
    return String(m);
  }
}

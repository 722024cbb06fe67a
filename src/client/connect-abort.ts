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
  return [target.command, ...(target.args ?? [])].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/**
 * Waits for `initialized`, rejecting with {@link ConnectAbortedError} when `timeoutMs` elapses
 * or `signal` aborts first. The caller tears the connection down on rejection.
 */
export function untilInitialized(initialized: Promise<void>, agent: string, signal: AbortSignal | undefined, timeoutMs: number | undefined): Promise<void> {
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

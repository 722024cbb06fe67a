import { AcpError, ErrorCode } from '@acp-kit/protocol';

/**
 * The agent did not answer a request within the time limit the client set for it (e.g.
 * {@link ClientOptions.sessionSetupTimeoutMs} for `session/new`). The request was cancelled
 * (`$/cancel_request`) and a late answer is ignored; the connection stays open.
 */
export class RequestTimeoutError extends AcpError {
  constructor(
    /** The neutral method name, e.g. `session/new`. */
    readonly method: string,
    /** The limit that elapsed, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(ErrorCode.RequestCancelled, `the agent did not answer ${method} within ${formatSeconds(timeoutMs)}`, {
      method,
      timeoutMs,
    });
    this.name = 'RequestTimeoutError';
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

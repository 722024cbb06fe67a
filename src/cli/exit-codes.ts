import type { StopReason } from '@acp-kit/protocol';

/**
 * Exit codes of `acp-kit`. Scripts depend on them: never renumber, only add.
 * The same table is printed by `--help` and documented in `src/cli/README.md`.
 */
export const ExitCode = {
  /** The turn ended normally (`end_turn`). */
  Ok: 0,
  /** An unexpected internal error of acp-kit itself. */
  Internal: 1,
  /** Bad flags or arguments. */
  Usage: 2,
  MaxTokens: 3,
  MaxTurnRequests: 4,
  Refusal: 5,
  /** The turn ended `cancelled` (not by our own Ctrl-C: that is 130). */
  Cancelled: 6,
  /** The turn ended with the `error` stop reason, a protocol error, or an unknown stop reason. */
  TurnError: 7,
  /** The non-interactive permission policy rejected at least one request during the turn. */
  PermissionDenied: 8,
  /** The agent could not be started, crashed or closed the connection. */
  AgentFailed: 9,
  /** No protocol version both sides speak (or not the one forced with `--protocol`). */
  VersionMismatch: 10,
  /** The agent requires authentication first. */
  AuthRequired: 11,
  /** The agent does not support what was asked (e.g. session listing or resuming). */
  Unsupported: 12,
  /** The session id is unknown to the agent. */
  SessionNotFound: 13,
  /** Interrupted by SIGINT (Ctrl-C) — the shell convention 128 + 2. */
  Interrupted: 130,
  /** Terminated by SIGTERM — 128 + 15. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Rows of the documented table (code, meaning). */
export const EXIT_CODE_TABLE: ReadonlyArray<readonly [number, string]> = [
  [ExitCode.Ok, 'the turn ended normally (stop reason end_turn)'],
  [ExitCode.Internal, 'unexpected internal error'],
  [ExitCode.Usage, 'bad flags or arguments'],
  [ExitCode.MaxTokens, 'stop reason max_tokens'],
  [ExitCode.MaxTurnRequests, 'stop reason max_turn_requests'],
  [ExitCode.Refusal, 'stop reason refusal'],
  [ExitCode.Cancelled, 'stop reason cancelled'],
  [ExitCode.TurnError, 'stop reason error, an unknown stop reason, or the prompt request failed'],
  [ExitCode.PermissionDenied, 'the permission policy rejected a request (run, non-interactive; replaces 0 and 6)'],
  [ExitCode.AgentFailed, 'agent not found, failed to start, crashed or hung up'],
  [ExitCode.VersionMismatch, 'no common protocol version (or not the forced one)'],
  [ExitCode.AuthRequired, 'the agent requires authentication'],
  [ExitCode.Unsupported, 'the agent does not support the operation (e.g. session listing)'],
  [ExitCode.SessionNotFound, 'unknown session id'],
  [ExitCode.Interrupted, 'interrupted with Ctrl-C (SIGINT); the turn was cancelled'],
  [ExitCode.Terminated, 'terminated by SIGTERM'],
];

/** The exit code for a turn's stop reason (before permission denials are considered). */
export function exitCodeForStopReason(stopReason: StopReason | null | undefined): ExitCode {
  switch (stopReason) {
    case 'end_turn':
      return ExitCode.Ok;
    case 'max_tokens':
      return ExitCode.MaxTokens;
    case 'max_turn_requests':
      return ExitCode.MaxTurnRequests;
    case 'refusal':
      return ExitCode.Refusal;
    case 'cancelled':
      return ExitCode.Cancelled;
    default:
      // `error`, custom `_` reasons and a missing reason: the turn did not finish as asked
      return ExitCode.TurnError;
  }
}

/**
 * The exit code of a finished `run` turn: a rejected permission request turns a nominal success
 * (or a cancel the agent did on its own after the rejection) into {@link ExitCode.PermissionDenied},
 * so scripts learn that the agent could not do everything it was asked.
 */
export function exitCodeForTurn(stopReason: StopReason | null | undefined, rejectedPermissions: number): ExitCode {
  const code = exitCodeForStopReason(stopReason);
  if (rejectedPermissions > 0 && (code === ExitCode.Ok || code === ExitCode.Cancelled))
    return ExitCode.PermissionDenied;
  return code;
}

/** The table as help text. */
export function formatExitCodeTable(indent = '  '): string {
  return EXIT_CODE_TABLE.map(([code, text]) => `${indent}${String(code).padStart(3)}  ${text}`).join('\n');
}

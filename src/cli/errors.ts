// the client's leaf modules, not its index: `acp-kit agent` must not load the client runtime (start-up)
import {
  AgentStartupError,
  ConnectAbortedError,
  RequestTimeoutError,
  authMethodsFromError,
  mergeAuthMethods,
  shellCommandLine,
  terminalLoginCommand,
} from '@acp-kit/client/errors';
import { AcpError, ErrorCode, type AuthMethod } from '@acp-kit/protocol';
import { ConnectionClosedError } from '@acp-kit/protocol/rpc';
import { ExitCode } from './exit-codes.js';
import { isObj } from '@acp-kit/protocol/internal';

/** An error the CLI reports to the user: a message, an optional hint, and its exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  /** Extra lines shown under the message (e.g. the agent's last stderr lines). */
  readonly details: string | undefined;
  /** A short machine-readable kind for `--json` output. */
  readonly kind: string;

  constructor(
    kind: string,
    exitCode: number,
    message: string,
    opts: { hint?: string; details?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CliError';
    this.kind = kind;
    this.exitCode = exitCode;
    this.hint = opts.hint;
    this.details = opts.details;
  }

  toJSON(): { kind: string; message: string; hint?: string; details?: string; exitCode: number } {
    return {
      kind: this.kind,
      message: this.message,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.details ? { details: this.details } : {}),
      exitCode: this.exitCode,
    };
  }
}

/** A usage error (bad flag value, missing argument). */
export function usageError(message: string, hint?: string): CliError {
  return new CliError('usage', ExitCode.Usage, message, { hint: hint ?? 'Run with --help to see the options.' });
}

/** What the CLI knows about the agent when an error happens; used to phrase hints. */
export interface AgentContext {
  /** How the agent was started, for messages (e.g. `my-agent --acp`). */
  commandLine: string;
  /** The executable (first word). */
  command: string;
  /** True for the built-in demo agent. */
  builtIn?: boolean;
  /** The version forced with `--protocol`, if any. */
  forcedProtocol?: number;
  /** Authentication methods the agent listed at `initialize`. */
  authMethods?: readonly AuthMethod[];
  /** The agent's arguments (a `type: "terminal"` login runs the agent with the method's args). */
  agentArgs?: readonly string[];
}

function describeAuthMethods(methods: readonly AuthMethod[] | undefined): string | undefined {
  if (!methods || methods.length === 0) return undefined;
  return methods
    .map(
      (m) =>
        `  - ${m.name} (id ${m.methodId}${m.type && m.type !== 'agent' ? `, type ${m.type}` : ''})${m.description ? `: ${m.description}` : ''}`,
    )
    .join('\n');
}

function authHint(ctx: AgentContext, methods: readonly AuthMethod[] | undefined): string {
  const logins = (methods ?? []).flatMap((m) => {
    const cmd = terminalLoginCommand(m, { command: ctx.command, args: ctx.agentArgs ?? [] });
    return cmd ? [{ m, cmd }] : [];
  });
  if (logins.length > 0) {
    const lines = logins.map(
      ({ m, cmd }) => `  ${shellCommandLine(cmd)}${logins.length > 1 ? `   (${cmd.label ?? m.name})` : ''}`,
    );
    return `Log in by running ${logins.length === 1 ? 'this command' : 'one of these commands'} in a terminal, then try again (or: acp-kit login --agent ${JSON.stringify(ctx.commandLine)}):\n${lines.join('\n')}`;
  }
  return "Log in with the agent's own tool (or set the API key it expects in the environment), then try again.";
}

function closedError(e: ConnectionClosedError, ctx: AgentContext): CliError {
  const info = e.info;
  const spawnCode = info.error instanceof Error && 'code' in info.error ? info.error.code : undefined;
  if (spawnCode === 'ENOENT') {
    return new CliError('agent_not_found', ExitCode.AgentFailed, `agent command not found: ${ctx.command}`, {
      hint: `Check that "${ctx.command}" is installed and on your PATH, or pass the full path with --agent "<command line>".`,
      cause: e,
    });
  }
  if (spawnCode === 'EACCES') {
    return new CliError(
      'agent_not_executable',
      ExitCode.AgentFailed,
      `agent command is not executable: ${ctx.command}`,
      {
        hint: `Make it executable (chmod +x) or run it through its interpreter, e.g. --agent "node ${ctx.command}".`,
        cause: e,
      },
    );
  }
  if (info.error && isAgentUrl(ctx.command)) {
    // --agent-url: there is no command line to check; the server is down or wants its token
    const status = refusedStatus(e);
    if (status !== undefined) return tokenRefused(e, ctx, status, undefined);
    return new CliError(
      'agent_start_failed',
      ExitCode.AgentFailed,
      `could not connect to the agent at ${ctx.command}: ${info.error.message}`,
      {
        hint: 'Check that the server is running (e.g. acp-kit serve --port 8765) and that --agent-url names its /acp endpoint.',
        cause: e,
      },
    );
  }
  if (info.error) {
    return new CliError(
      'agent_start_failed',
      ExitCode.AgentFailed,
      `could not start agent "${ctx.commandLine}": ${info.error.message}`,
      {
        hint: 'Check the --agent command line.',
        cause: e,
      },
    );
  }
  const how = info.signal
    ? `was killed by signal ${info.signal}`
    : info.exitCode !== undefined && info.exitCode !== null
      ? `exited with code ${info.exitCode}`
      : `closed the connection (${info.reason})`;
  return new CliError('agent_crashed', ExitCode.AgentFailed, `the agent ${how}: ${ctx.commandLine}`, {
    details: info.stderrTail
      ? `last lines the agent wrote to stderr:\n${indent(info.stderrTail.trimEnd())}`
      : undefined,
    hint: info.stderrTail
      ? 'See the agent output above. Run the agent command on its own to check that it starts and speaks ACP on stdio.'
      : 'The agent wrote nothing to stderr. Check that the command is an ACP agent that speaks JSON-RPC on stdio.',
    cause: e,
  });
}

/** True for an `--agent-url` target (ws, wss, http, https), which has no command line. */
function isAgentUrl(target: string): boolean {
  return /^(wss?|https?):\/\//i.test(target);
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `  | ${l}`)
    .join('\n');
}

/**
 * Turns anything thrown while talking to an agent into a {@link CliError} with a hint.
 * Already-classified errors pass through unchanged.
 */
export function toCliError(e: unknown, ctx: AgentContext): CliError {
  if (e instanceof CliError) return e;
  if (e instanceof ConnectionClosedError) return closedError(e, ctx);
  if (e instanceof ConnectAbortedError) {
    if (e.reason === 'aborted')
      return new CliError('interrupted', ExitCode.Interrupted, 'interrupted while connecting to the agent', {
        cause: e,
      });
    return new CliError(
      'agent_timeout',
      ExitCode.AgentFailed,
      `the agent did not answer initialize within ${(e.timeoutMs ?? 0) / 1000} s: ${ctx.commandLine}`,
      {
        hint: 'Check that the command is an ACP agent (JSON-RPC on stdin/stdout), or raise --connect-timeout for slow starts.',
        cause: e,
      },
    );
  }
  if (e instanceof RequestTimeoutError) {
    return new CliError(
      'agent_timeout',
      ExitCode.AgentFailed,
      `the agent did not answer ${e.method} within ${e.timeoutMs / 1000} s: ${ctx.commandLine}`,
      {
        hint: 'The agent started but did not open the session; run it with --verbose to see its stderr, or raise --timeout if it is just slow.',
        cause: e,
      },
    );
  }
  if (e instanceof AcpError || isRpcErrorLike(e)) return rpcError(e, ctx);
  if (e instanceof Error && 'code' in e && e.code === 'ACP_VERSION_MISMATCH') {
    return new CliError('version_mismatch', ExitCode.VersionMismatch, e.message, {
      hint: ctx.forcedProtocol ? 'Drop --protocol (or use --protocol auto) to let both sides negotiate.' : undefined,
      cause: e,
    });
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new CliError('internal', ExitCode.Internal, `unexpected error: ${msg}`, {
    details: e instanceof Error && process.env.ACP_KIT_DEBUG ? e.stack : undefined,
    hint: 'Set ACP_KIT_DEBUG=1 to see the stack trace.',
    cause: e,
  });
}

/** An error the agent answered (JSON-RPC error object), by its code. */
function rpcError(e: RpcErrorLike, ctx: AgentContext): CliError {
  const { code, message, data } = e;
  switch (code) {
    case ErrorCode.AuthRequired: {
      // some agents (kimi) list the methods again, or only, in the error's data
      const methods = mergeAuthMethods(ctx.authMethods ?? [], authMethodsFromError(e));
      const list = describeAuthMethods(methods);
      return new CliError('auth_required', ExitCode.AuthRequired, `the agent requires authentication: ${message}`, {
        details: list
          ? `authentication methods offered by the agent:\n${list}`
          : 'the agent listed no authentication methods',
        hint: authHint(ctx, methods),
        cause: e,
      });
    }
    case ErrorCode.UnsupportedVersion: {
      const d = isObj(data) ? data : undefined;
      if (d && 'answered' in d) {
        // the agent answered initialize with a version we did not ask for / cannot speak
        return new CliError(
          'version_mismatch',
          ExitCode.VersionMismatch,
          `protocol version mismatch: the agent answered version ${JSON.stringify(d.answered)}, but acp-kit asked for ${Array.isArray(d.supported) ? d.supported.join(' or ') : '?'}`,
          {
            hint: ctx.forcedProtocol
              ? 'Drop --protocol (or use --protocol auto) to let both sides negotiate.'
              : 'Upgrade the agent or acp-kit so that both speak a common version.',
            cause: e,
          },
        );
      }
      const supported = Array.isArray(d?.supported) ? d.supported.join(', ') : 'unknown';
      return new CliError('version_mismatch', ExitCode.VersionMismatch, `protocol version mismatch: ${message}`, {
        details: `the agent speaks version(s) ${supported}; acp-kit speaks 1 and 2`,
        hint: ctx.forcedProtocol
          ? 'Drop --protocol (or use --protocol auto) to let both sides negotiate.'
          : 'Upgrade the agent or acp-kit so that both speak a common version.',
        cause: e,
      });
    }
    case ErrorCode.MethodNotFound:
      return new CliError('unsupported', ExitCode.Unsupported, `the agent does not support this: ${message}`, {
        cause: e,
      });
    case ErrorCode.ResourceNotFound:
      return new CliError('not_found', ExitCode.SessionNotFound, message, {
        hint: 'List the known sessions with `acp-kit sessions list`.',
        cause: e,
      });
    default:
      return new CliError(
        'agent_error',
        ExitCode.TurnError,
        `the agent answered with an error: ${message} (code ${code})`,
        {
          details: data === undefined ? undefined : `error data: ${safeJson(data)}`,
          cause: e,
        },
      );
  }
}

/**
 * The error of a failed connect (spawn + `initialize`), the one place that phrases it: an agent
 * that wrote something other than JSON-RPC to stdout (quoted), one that exited (exit code, last
 * stdout and stderr lines), a timeout, a refusal.
 */
export function connectError(e: unknown, ctx: AgentContext): CliError {
  if (e instanceof AgentStartupError && e.kind === 'non-json-stdout' && e.firstNonJsonLine !== undefined) {
    return new CliError(
      'agent_not_acp',
      ExitCode.AgentFailed,
      `the agent wrote a line to stdout that is not JSON-RPC: ${quoteLine(e.firstNonJsonLine)}`,
      {
        details: `agent: ${ctx.commandLine}\nACP agents write only JSON-RPC messages to stdout (logs go to stderr); acp-kit stopped waiting for the initialize answer.`,
        hint: 'Check that the command starts the agent in ACP mode (many agents need a flag such as --acp), and that it logs to stderr.',
        cause: e,
      },
    );
  }
  const err = toCliError(e, ctx);
  const tail = e instanceof AgentStartupError ? e.stdoutTail : [];
  if (err.kind === 'agent_crashed' && tail.length > 0) {
    const lines = `last lines the agent wrote to stdout (not JSON-RPC):\n${indent(tail.join('\n'))}`;
    return new CliError(err.kind, err.exitCode, err.message, {
      details: err.details ? `${lines}\n${err.details}` : lines,
      hint: err.hint,
      cause: e,
    });
  }
  return err;
}

/**
 * A failed connect to `--agent-url`: the server refusing the token (HTTP 401/403, on the
 * WebSocket upgrade or the HTTP `initialize`) is an authentication problem saying where the token
 * goes; anything else is phrased as {@link connectError} does.
 */
export function remoteConnectError(e: unknown, ctx: AgentContext, tokenGiven: boolean): CliError {
  const status = refusedStatus(e);
  return status === undefined ? connectError(e, ctx) : tokenRefused(e, ctx, status, tokenGiven);
}

/** The server at `--agent-url` refused the credentials: exit 11, saying where the token goes. */
function tokenRefused(e: unknown, ctx: AgentContext, status: number, tokenGiven: boolean | undefined): CliError {
  const what =
    tokenGiven === undefined
      ? `the server at ${ctx.commandLine} refused the connection (HTTP ${status}): it needs its token`
      : tokenGiven
        ? `the server at ${ctx.commandLine} refused the token (HTTP ${status})`
        : `the server at ${ctx.commandLine} needs a token (HTTP ${status})`;
  return new CliError('auth_required', ExitCode.AuthRequired, what, {
    hint: `Put the token the server was started with (acp-kit serve --token-file or $ACP_KIT_SERVE_TOKEN) in $ACP_KIT_AGENT_TOKEN or in a file named by --agent-token-file.`,
    cause: e,
  });
}

/** The HTTP 401/403 the transports report (in the error or the closed connection's cause) when a server refuses the credentials. */
function refusedStatus(e: unknown): number | undefined {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; depth++) {
    const m = /\b(?:upgrade|refused): HTTP (40[13])\b/.exec(cur.message);
    if (m) return Number(m[1]);
    cur = cur instanceof ConnectionClosedError && cur.info.error ? cur.info.error : cur.cause;
  }
  return undefined;
}

function quoteLine(line: string): string {
  const l = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  return JSON.stringify(l);
}

type RpcErrorLike = { code: number; message: string; data?: unknown };

function isRpcErrorLike(e: unknown): e is RpcErrorLike {
  return (
    typeof e === 'object' &&
    e !== null &&
    'code' in e &&
    typeof e.code === 'number' &&
    'message' in e &&
    typeof e.message === 'string'
  );
}

function safeJson(v: unknown): string {
  try {
    const s = JSON.stringify(v);
    return s.length > 500 ? `${s.slice(0, 500)}…` : s;
  } catch {
    return String(v);
  }
}

/** Formats an error for stderr: `acp-kit: message`, details, `hint: ...`. */
export function formatCliError(
  e: CliError,
  style: { red(s: string): string; dim(s: string): string; yellow(s: string): string },
): string {
  let out = `${style.red('acp-kit: error:')} ${e.message}\n`;
  if (e.details) out += `${style.dim(e.details)}\n`;
  if (e.hint) out += `${style.yellow('hint:')} ${e.hint}\n`;
  return out;
}

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { messageOf } from '@acp-kit/agent/internal';
import {
  connectReconnecting,
  connectToAgent,
  type ClientConnection,
  type ClientOptions,
  type ClientSession,
  type PermissionPolicy,
  type ElicitationPolicy,
  type ReconnectingConnection,
  type RemoteTarget,
  type RestoreSessionOptions,
  type SessionMcpServer,
} from '@acp-kit/client';
import type { TerminalExitStatus } from '@acp-kit/protocol';
import {
  agentContext,
  remoteAgentCommand,
  resolveAgentCommand,
  type AgentCommand,
  type CliModelFlags,
} from './agent-command.js';
import { registryAgent } from './registry-agent.js';
import { connectError, remoteConnectError, toCliError, usageError, type AgentContext } from './errors.js';
import type { AgentFlags } from './flags.js';
import { mcpOverAcpServers } from './mcp-over-acp-flag.js';
import { packageVersion } from '@acp-kit/protocol/internal';
import type { ClientTerminalReport } from './render/run-reporter.js';

/** A connected agent plus what the CLI needs to report errors about it. */
export interface OpenAgent {
  /** The connection in use (with `--agent-url`, the current one: it is replaced at each reconnect). */
  readonly conn: ClientConnection;
  /** `--agent-url`: the connection that reconnects and resumes its sessions after a drop. */
  reconnecting?: ReconnectingConnection;
  agent: AgentCommand;
  ctx: AgentContext;
  /** Absolute session working directory. */
  cwd: string;
  /** `--mcp-over-acp`: servers offered with every session this command opens */
  mcpServers: SessionMcpServer[];
  /** Closes the connection (kills the agent's process group); idempotent. */
  close(): Promise<void>;
}

/** Hooks for output of client-executed (v1) terminals, for display. */
export interface TerminalHooks {
  onOutput?: (terminalId: string, text: string) => void;
  onExit?: (terminalId: string, status: TerminalExitStatus) => void;
}

/**
 * Names a client terminal for the reporters (session, id, command). The command is looked up once
 * per terminal: `clientTerminal()` decodes the whole retained output (up to 16 MiB) to build its
 * snapshot, and output arrives in 64 KiB pipe chunks, so a lookup per chunk made `run` quadratic
 * in the command's output (10 MB 4 s, 40 MB 31 s). A terminal not found yet is not remembered.
 */
export function terminalNamer(
  session: () => Pick<ClientSession, 'sessionId' | 'clientTerminal'> | undefined,
): (terminalId: string) => ClientTerminalReport {
  const known = new Map<string, ClientTerminalReport>();
  return (terminalId) => {
    const seen = known.get(terminalId);
    if (seen) return seen;
    const s = session();
    const t = s?.clientTerminal(terminalId);
    const report: ClientTerminalReport = {
      sessionId: s?.sessionId ?? '',
      terminalId,
      ...(t ? { command: { command: t.command, args: t.args } } : {}),
    };
    if (t) known.set(terminalId, report);
    return report;
  };
}

/** Validates `--cwd` (default: the current directory) and makes it absolute. */
export function resolveCwd(flag: string | undefined): string {
  const cwd = resolve(flag ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw usageError(`--cwd ${JSON.stringify(flag)} does not exist`);
  }
  if (!isDir) throw usageError(`--cwd ${JSON.stringify(flag)} is not a directory`);
  return cwd;
}

export function protocolChoice(p: string | undefined): 'auto' | 1 | 2 {
  if (p === undefined || p === 'auto') return 'auto';
  if (p === '1') return 1;
  if (p === '2') return 2;
  throw usageError(`--protocol must be auto, 1 or 2 (got ${JSON.stringify(p)})`);
}

/**
 * Starts the agent and runs `initialize`, with the client services the CLI offers: a file
 * system sandbox and client-executed terminals (v1), confined to the session roots, and
 * `--connect-timeout` as the library's initialize timeout. Connection failures come back as
 * `CliError`s with hints.
 */
export async function openAgent(
  flags: AgentFlags & CliModelFlags,
  opts: {
    permissionPolicy?: PermissionPolicy;
    /** Answers the agent's `elicitation/create` (and advertises its modes). */
    elicitation?: ElicitationPolicy;
    terminals?: TerminalHooks;
    onStderr?: (text: string) => void;
    /** Aborting before `initialize` completes kills the agent and rejects (e.g. Ctrl-C while connecting). */
    signal?: AbortSignal;
    /** `--agent-url`: the one line telling the user of a reconnect (default: written to stderr; `chat` shows it on its screen). */
    onReconnected?: (message: string) => void;
  } = {},
): Promise<OpenAgent> {
  const cwd = resolveCwd(flags.cwd);
  const mcpServers = mcpOverAcpServers(flags.mcpOverAcp, cwd);
  const protocol = protocolChoice(flags.protocol);
  // a remote agent is named by its URL: the local agent is not started, its model not chosen
  const agent =
    flags.agentUrl !== undefined
      ? remoteAgentCommand(flags.agentUrl, flags.agent, flags)
      : ((await registryAgent(flags.agent ?? (process.env.ACP_KIT_AGENT || undefined), {
          required: flags.agentIsId === true,
        })) ?? resolveAgentCommand(flags.agent, process.env, flags));
  const ctx = agentContext(agent, protocol === 'auto' ? undefined : protocol);
  const options: ClientOptions = {
    protocol,
    clientInfo: { name: 'acp-kit', version: packageVersion(), title: 'acp-kit CLI' },
    permissionPolicy: opts.permissionPolicy,
    ...(opts.elicitation ? { elicitation: opts.elicitation } : {}),
    fileSystem: true,
    terminals: { onOutput: opts.terminals?.onOutput, onExit: opts.terminals?.onExit },
    // the library kills the agent's process group when either fires before initialize completes
    initializeTimeoutMs: (flags.connectTimeout ?? 60) * 1000,
    sessionSetupTimeoutMs: (flags.timeout ?? 60) * 1000,
    // a broken agent (non-JSON stdout then silence, or an exit) fails fast with AgentStartupError
    signal: opts.signal,
    onStderr: (text) => {
      opts.onStderr?.(text);
      if (flags.verbose) process.stderr.write(text);
    },
    onProblem: (p) => {
      if (flags.verbose) process.stderr.write(`acp-kit: protocol problem (${p.kind}): ${p.message}\n`);
    },
  };
  if (flags.agentUrl !== undefined) {
    const target = await remoteTarget(flags, flags.agentUrl);
    let rc: ReconnectingConnection;
    try {
      // a dropped network path (not the agent's answer) reconnects with bounded backoff and
      // resumes the open sessions with a replay: the user sees no loss and no duplicate
      rc = await connectReconnecting({ ...options, ...target });
    } catch (e) {
      throw remoteConnectError(e, ctx, target.token !== undefined);
    }
    ctx.authMethods = rc.connection.authMethods;
    ctx.agentArgs = agent.args;
    const told = opts.onReconnected ?? ((message: string) => void process.stderr.write(`acp-kit: ${message}\n`));
    rc.on('reconnected', ({ attempt }) =>
      told(`the connection to ${target.url} dropped; reconnected (attempt ${attempt}) and resumed the session`),
    );
    return {
      get conn() {
        return rc.connection;
      },
      reconnecting: rc,
      agent,
      ctx,
      cwd,
      mcpServers,
      close: () => rc.close(),
    };
  }
  let conn: ClientConnection;
  try {
    // a registry manifest's env and a profile's agent.env add to ours (the agent still needs PATH, HOME, ...)
    const extra = { ...agent.env, ...flags.agentEnv };
    const env = Object.keys(extra).length > 0 ? { env: { ...process.env, ...extra } } : {};
    conn = await connectToAgent({ command: agent.command, args: agent.args, cwd, ...env }, options);
  } catch (e) {
    throw connectError(e, ctx);
  }
  ctx.authMethods = conn.authMethods;
  ctx.agentArgs = agent.args;
  return { conn, agent, ctx, cwd, mcpServers, close: () => conn.close() };
}

/** `--agent-url`, with the token of `--agent-token-file` or $ACP_KIT_AGENT_TOKEN (the URL checked before connecting). */
async function remoteTarget(flags: AgentFlags, url: string): Promise<RemoteTarget & { url: string }> {
  let token = process.env.ACP_KIT_AGENT_TOKEN;
  if (flags.agentTokenFile !== undefined) {
    try {
      token = (await import('node:fs')).readFileSync(flags.agentTokenFile, 'utf8').trim();
    } catch (e) {
      throw usageError(`cannot read --agent-token-file ${flags.agentTokenFile}: ${messageOf(e)}`);
    }
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`--agent-url ${JSON.stringify(url)} is not a URL: use ws://host:port/acp or http://host:port/acp`);
  }
  if (!['ws:', 'wss:', 'http:', 'https:'].includes(parsed.protocol)) {
    throw usageError(`--agent-url scheme ${parsed.protocol} is not supported: use ws://, wss://, http:// or https://`);
  }
  if (parsed.searchParams.has('token') || parsed.searchParams.has('access_token')) {
    throw usageError('put the token in $ACP_KIT_AGENT_TOKEN or --agent-token-file, not in the --agent-url query');
  }
  if (flags.agentHttp2 && !['http:', 'https:'].includes(parsed.protocol)) {
    throw usageError(`--agent-http2 needs an http:// or https:// --agent-url (got ${parsed.protocol}//)`);
  }
  return { url, ...(token !== undefined ? { token } : {}), ...(flags.agentHttp2 ? { http2: true } : {}) };
}

/**
 * `session/new`, or resume/load of `resumeId` with a replay of its history; `onUpdate` sees every
 * update applied while the session opens (a replay, and what the agent sends before or with its
 * answer), in wire order, before this resolves. Aborting `signal` (Ctrl-C) withdraws the pending
 * request with `$/cancel_request` instead of waiting for the agent.
 */
export async function openSession(
  a: OpenAgent,
  resumeId?: string,
  onUpdate?: RestoreSessionOptions['onUpdate'],
  signal?: AbortSignal,
): Promise<{ session: ClientSession; mode: 'new' | 'load' | 'resume' }> {
  try {
    const mcpServers = a.mcpServers;
    if (resumeId === undefined)
      return { session: await a.conn.newSession({ cwd: a.cwd, mcpServers, onUpdate, signal }), mode: 'new' };
    const session = await a.conn.resumeSession(resumeId, { cwd: a.cwd, mcpServers, replay: true, onUpdate, signal });
    return { session, mode: a.conn.replayMethod === 'session/load' ? 'load' : 'resume' };
  } catch (e) {
    throw toCliError(e, a.ctx);
  }
}

/**
 * Installs SIGINT/SIGTERM handlers for the duration of a command. The first SIGINT calls
 * `onInterrupt` (cancel the turn); a second one, or SIGTERM, calls `onAbort` which must close
 * the connection and exit. Returns the uninstall function.
 */
export function handleSignals(onInterrupt: () => void, onAbort: (signal: 'SIGINT' | 'SIGTERM') => void): () => void {
  let interrupts = 0;
  const onInt = (): void => {
    interrupts++;
    if (interrupts === 1) onInterrupt();
    else onAbort('SIGINT');
  };
  const onTerm = (): void => onAbort('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onTerm);
  };
}

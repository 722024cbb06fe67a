/**
 * What `acp-kit run` reports, and how: one interface, two implementations (human text and
 * NDJSON). `run` drives the turn and calls the reporter; the reporters only format and write to
 * the streams they were given, so both can be tested in-process with string sinks.
 */
import type {
  AgentCapabilities,
  AuthMethod,
  AuthStatus,
  Implementation,
  PermissionOutcome,
  PermissionRequest,
  StopReason,
  AnySessionUpdate,
  ErrorObject,
  SessionState,
} from '@acp-kit/protocol';
import type { TurnTokenUsage } from '@acp-kit/protocol/internal';
import type { ElicitationEvent } from '@acp-kit/client';
import { type CliError, formatCliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { configChoices, configSummary, type ConfigReport } from '../session-config.js';
import { joinCommandLine } from '../split-command-line.js';
import { stripAnsi, type Style } from '../style.js';
import type { ToolTimeoutReport } from '../tool-timeout.js';
import { NdjsonWriter } from './ndjson-events.js';
import { authStatusLine } from './symbols.js';
import { SubagentRenderers } from './subagent-lines.js';
import { TranscriptRenderer } from './transcript.js';

/** The output streams of a reporter, as plain write functions plus their colour settings. */
export interface ReporterStreams {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Styling for stdout (text reporter only; NDJSON is never coloured). */
  style: Style;
  /** Styling for stderr (messages, errors, hints). */
  errStyle: Style;
}

/** The agent `run` connected to. */
export interface ConnectedReport {
  protocolVersion: number;
  agentInfo: Implementation | null;
  agentCapabilities: AgentCapabilities;
  authMethods: AuthMethod[];
  /** The agent command line as spawned. */
  agent: string[];
  /** For the header when the agent sent no `agentInfo`. */
  agentDisplay: string;
  /** The model the built-in agent was started with (e.g. `openai:gpt-4o-mini`); unknown for other agents. */
  model?: string;
  cwd: string;
}

/** One decided permission request. */
export interface PermissionReport {
  sessionId: string;
  request: PermissionRequest;
  outcome: PermissionOutcome;
  allowed: boolean;
  /** Why: `policy --approve-all`, `turn cancelled`, ... */
  reason: string;
  /** Human description of the decision. */
  decision: string;
}

/** A command the agent runs through this client (v1 `terminal/*`). */
export interface ClientTerminalReport {
  sessionId: string;
  terminalId: string;
  /** `command` and `args` as the agent sent them, when known. */
  command?: { command: string; args: readonly string[] };
}

/** The end of a turn that ran to a stop reason. */
export interface TurnReport {
  /** `null` when the agent reported none (v2 prompt ended without a stop reason). */
  stopReason: StopReason | null;
  exitCode: number;
  error?: ErrorObject | null;
  usage?: SessionState['usage'];
  /** The turn's token counts (`_meta["acp-kit/usage"]`), when the agent reported them. */
  tokens?: TurnTokenUsage;
  rejectedPermissions: number;
  /** The policy's flag name (`approve-reads`, ...), for the hint after rejections. */
  policyName: string;
}

/** What is known about a run that failed. */
export interface KnownSoFar {
  usage?: SessionState['usage'];
  tokens?: TurnTokenUsage;
  rejectedPermissions?: number;
}

/** What `acp-kit run` reports; one call per event, in the order they happen. */
export interface RunReporter {
  connected(c: ConnectedReport): void;
  session(s: { sessionId: string; cwd: string; mode: 'new' | 'load' | 'resume' }): void;
  /** `--config`/`--mode`/`--model` were applied: what was set and the session's config state after. */
  config(c: ConfigReport): void;
  /** One applied update (from `ClientSession.onUpdate`). */
  update(sessionId: string, u: AnySessionUpdate, state: SessionState): void;
  permission(p: PermissionReport): void;
  /** An elicitation asked, answered or completed (issue 26). */
  elicitation(e: ElicitationEvent): void;
  /** The agent's unstable `auth/status_update`: its auth state changed. */
  authStatus(s: AuthStatus): void;
  clientTerminalOutput(t: ClientTerminalReport, text: string): void;
  clientTerminalExit(t: ClientTerminalReport, status: { exitCode?: number | null; signal?: string | null }): void;
  /** The first Ctrl-C: the turn is being cancelled. */
  cancelling(): void;
  /** `--tool-timeout`: a tool call ran longer than the limit (cancelled alone, or why not). */
  toolTimeout(sessionId: string, r: ToolTimeoutReport): void;
  /** The turn ended with a stop reason (the last call on success). */
  finished(t: TurnReport): void;
  /**
   * The run failed (usage error, agent failure, interruption). `usage` and `rejected` describe
   * what is known so far. The last call on failure.
   */
  failed(err: CliError, known?: KnownSoFar): void;
}

/** The text line for a `--tool-timeout` report. */
export function toolTimeoutLine(r: ToolTimeoutReport): string {
  const which = `tool call ${r.title !== undefined ? JSON.stringify(r.title) : r.toolCallId} ran longer than ${r.timeoutMs} ms`;
  if (r.outcome === 'cancelled') return `${which}: cancelled it (tool_call/cancel); the turn goes on`;
  if (r.outcome === 'failed') return `${which}: the agent refused to cancel it: ${r.error ?? 'error'}`;
  return `${which}: it does not advertise capabilities.cancel, left running`;
}

/**
 * How a client-executed command is shown: the script of `sh -c <script>` as the user would type
 * it, anything else quoted so that it reads back as the same words.
 */
export function displayCommand(command: string, args: readonly string[]): string {
  if (args.length === 0) return command; // a whole command line
  const shell = /(^|\/)(sh|bash|dash|zsh|ksh)$/.test(command);
  const [flag, script] = args;
  if (shell && args.length === 2 && flag === '-c' && script !== undefined) return script;
  return joinCommandLine([command, ...args]);
}

/** The header line (stderr) of a text run: agent, model, protocol, directory. */
export function headerLine(c: ConnectedReport): string {
  const name = c.agentInfo ? `${c.agentInfo.title ?? c.agentInfo.name} ${c.agentInfo.version}` : c.agentDisplay;
  return `acp-kit: ${name}${c.model ? ` · model ${c.model}` : ''} · protocol v${c.protocolVersion} · ${c.cwd}`;
}

/** Human output: the transcript on stdout, header, notes and errors on stderr. */
export class TextRunReporter implements RunReporter {
  private renderer: TranscriptRenderer | undefined;
  /** Subagents (child sessions, unstable) render indented under the session that owns them. */
  private children: SubagentRenderers | undefined;
  private readonly terminalsShown = new Set<string>();

  constructor(private readonly io: ReporterStreams) {}

  connected(c: ConnectedReport): void {
    this.renderer = new TranscriptRenderer({ write: this.io.stdout, style: this.io.style, cwd: c.cwd });
    this.children = new SubagentRenderers(this.renderer, this.io.style, c.cwd);
    this.io.stderr(this.io.errStyle.dim(`${headerLine(c)}\n`));
  }

  session(): void {}

  config(c: ConfigReport): void {
    this.io.stderr(
      this.io.errStyle.dim(
        `acp-kit: ${configSummary(configChoices({ configOptions: c.configOptions, modes: c.modes }))}\n`,
      ),
    );
  }

  update(sessionId: string, u: AnySessionUpdate, state: SessionState): void {
    // a child's update comes with the child's state (SessionState.applyChild)
    if (state.sessionId !== sessionId && this.children) this.children.of(state).onUpdate(u, state);
    else this.renderer?.onUpdate(u, state);
  }

  permission(p: PermissionReport): void {
    this.renderer?.permission(p.request.title, { allowed: p.allowed, text: p.reason });
  }

  elicitation(e: ElicitationEvent): void {
    const r = this.renderer;
    if (!r) return;
    const dim = this.io.style.dim;
    if (e.type === 'asked') {
      const where = e.request.mode === 'url' ? ` (${e.request.url})` : '';
      r.line(`? ${stripAnsi(e.request.message)}${stripAnsi(where)}`);
    } else if (e.type === 'answered') {
      const r2 = e.response;
      const content = r2.action === 'accept' && r2.content ? ` ${JSON.stringify(r2.content)}` : '';
      r.line(dim(`    ${r2.action}${content}${e.reason ? ` (${stripAnsi(e.reason)})` : ''}`));
    } else r.line(dim(`    completed ${stripAnsi(e.elicitationId)}`));
  }

  authStatus(s: AuthStatus): void {
    this.io.stderr(this.io.errStyle.dim(`acp-kit: ${authStatusLine(s)}\n`));
  }

  clientTerminalOutput(t: ClientTerminalReport, text: string): void {
    const r = this.renderer;
    if (!r) return;
    const dim = this.io.style.dim;
    if (!this.terminalsShown.has(t.terminalId)) {
      this.terminalsShown.add(t.terminalId);
      if (t.command) r.line(dim(`    $ ${stripAnsi(displayCommand(t.command.command, t.command.args))}`));
    }
    r.terminalText(t.terminalId, text);
  }

  clientTerminalExit(_t: ClientTerminalReport, status: { exitCode?: number | null; signal?: string | null }): void {
    this.renderer?.line(
      this.io.style.dim(`    ${status.signal ? `killed by ${status.signal}` : `exit code ${status.exitCode ?? '?'}`}`),
    );
  }

  toolTimeout(_sessionId: string, r: ToolTimeoutReport): void {
    this.renderer?.closeStyle();
    this.io.stderr(this.io.errStyle.yellow(`\nacp-kit: ${toolTimeoutLine(r)}\n`));
  }

  cancelling(): void {
    this.renderer?.closeStyle();
    this.io.stderr(this.io.errStyle.yellow('\nacp-kit: cancelling the turn… (Ctrl-C again to quit now)\n'));
  }

  finished(t: TurnReport): void {
    this.children?.flush();
    this.renderer?.stop(t.stopReason, t.error, t.usage, t.tokens);
    if (t.exitCode === ExitCode.PermissionDenied) {
      const e = this.io.errStyle;
      const n = t.rejectedPermissions;
      this.io.stderr(
        `${e.yellow('acp-kit:')} the --${t.policyName} policy rejected ${n} permission request${n === 1 ? '' : 's'}; exit code ${t.exitCode}.\n` +
          `${e.yellow('hint:')} re-run with --approve-all to let the agent ${t.policyName === 'approve-reads' ? 'edit files and run commands' : 'act'}.\n`,
      );
    }
  }

  failed(err: CliError): void {
    this.renderer?.closeStyle();
    this.io.stderr(formatCliError(err, this.io.errStyle));
  }
}

/**
 * `--json`: NDJSON events on stdout (see {@link CliEvent}), `connection` first and exactly one
 * `result` last, on success and on every failure. Errors are also explained on stderr for
 * humans watching a pipe (except an interruption, which they caused).
 */
export class NdjsonRunReporter implements RunReporter {
  private readonly w: NdjsonWriter;
  private done = false;
  /** Last reported value (JSON) of each tool call field, to drop updates that change nothing. */
  private readonly toolFields = new Map<string, Map<string, string>>();

  constructor(private readonly io: Pick<ReporterStreams, 'stdout' | 'stderr' | 'errStyle'>) {
    this.w = new NdjsonWriter(io.stdout);
  }

  connected(c: ConnectedReport): void {
    this.w.emit({
      type: 'connection',
      protocolVersion: c.protocolVersion,
      agentInfo: c.agentInfo,
      agentCapabilities: c.agentCapabilities,
      authMethods: c.authMethods,
      agent: c.agent,
      ...(c.model ? { model: c.model } : {}),
    });
  }

  session(s: { sessionId: string; cwd: string; mode: 'new' | 'load' | 'resume' }): void {
    this.w.emit({ type: 'session', ...s });
  }

  config(c: ConfigReport): void {
    this.w.emit({ type: 'config', ...c });
  }

  update(sessionId: string, u: AnySessionUpdate, state?: SessionState): void {
    // a subagent's update (unstable): its own session id, and the session that owns it
    if (state && state.sessionId !== sessionId) {
      this.w.emit({ type: 'update', sessionId: state.sessionId, parentSessionId: sessionId, update: u });
      return;
    }
    if (u.sessionUpdate === 'tool_call_update' && !this.changesToolCall({ ...u })) return;
    this.w.emit({ type: 'update', sessionId, update: u });
  }

  /**
   * A permission request re-applies its tool call (ACP-V2-PERM-02), often unchanged or as a bare
   * id (v1); that is not news for a reader of the stream, the `permission` event carries it.
   */
  private changesToolCall(u: Record<string, unknown>): boolean {
    const id = typeof u.toolCallId === 'string' ? u.toolCallId : undefined;
    if (id === undefined) return true;
    let known = this.toolFields.get(id);
    const isNew = !known;
    if (!known) this.toolFields.set(id, (known = new Map()));
    let changed = isNew;
    for (const [k, v] of Object.entries(u)) {
      if (k === 'sessionUpdate' || k === 'toolCallId' || v === undefined) continue;
      const json = JSON.stringify(v);
      if (known.get(k) !== json) {
        known.set(k, json);
        changed = true;
      }
    }
    return changed;
  }

  elicitation(e: ElicitationEvent): void {
    if (e.type === 'completed')
      this.w.emit({ type: 'elicitation', event: 'completed', sessionId: e.sessionId, elicitationId: e.elicitationId });
    else
      this.w.emit({
        type: 'elicitation',
        event: e.type,
        sessionId: e.sessionId,
        request: e.request,
        ...(e.type === 'answered' ? { response: e.response, ...(e.reason ? { reason: e.reason } : {}) } : {}),
      });
  }

  authStatus(s: AuthStatus): void {
    this.w.emit({ type: 'auth_status', ...s });
  }

  permission(p: PermissionReport): void {
    this.w.emit({
      type: 'permission',
      sessionId: p.sessionId,
      request: p.request,
      outcome: p.outcome,
      allowed: p.allowed,
      decision: p.decision,
    });
  }

  clientTerminalOutput(t: ClientTerminalReport, text: string): void {
    this.w.emit({ type: 'client_terminal', sessionId: t.sessionId, terminalId: t.terminalId, output: text });
  }

  clientTerminalExit(t: ClientTerminalReport, status: { exitCode?: number | null; signal?: string | null }): void {
    this.w.emit({ type: 'client_terminal', sessionId: t.sessionId, terminalId: t.terminalId, exitStatus: status });
  }

  toolTimeout(sessionId: string, r: ToolTimeoutReport): void {
    this.w.emit({ type: 'tool_timeout', sessionId, ...r });
  }

  cancelling(): void {
    this.io.stderr(this.io.errStyle.yellow('\nacp-kit: cancelling the turn… (Ctrl-C again to quit now)\n'));
  }

  finished(t: TurnReport): void {
    this.result(t.stopReason, t.exitCode, t.rejectedPermissions, t, t.error ?? undefined);
  }

  failed(err: CliError, known: KnownSoFar = {}): void {
    if (this.done) return;
    this.result(null, err.exitCode, known.rejectedPermissions ?? 0, known, err.toJSON());
    if (err.kind !== 'interrupted') this.io.stderr(formatCliError(err, this.io.errStyle));
  }

  private result(
    stopReason: string | null,
    exitCode: number,
    rejectedPermissions: number,
    { usage, tokens }: { usage?: SessionState['usage']; tokens?: TurnTokenUsage },
    error: ErrorObject | ReturnType<CliError['toJSON']> | undefined,
  ): void {
    if (this.done) return;
    this.done = true;
    this.w.emit({
      type: 'result',
      stopReason,
      exitCode,
      rejectedPermissions,
      ...(usage ? { usage: { used: usage.used, size: usage.size, ...(usage.cost ? { cost: usage.cost } : {}) } } : {}),
      ...(tokens ? { tokens: { ...tokens } } : {}),
      ...(error ? { error } : {}),
    });
  }
}

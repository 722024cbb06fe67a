import { readTurnTokenUsage, type TurnTokenUsage } from '@acp-kit/protocol/internal';
import { AcpError, ErrorCode, type AnySessionUpdate, type TurnUsage } from '@acp-kit/protocol';
import {
  type ClientSession,
  type ReconnectingSession,
  approveAll,
  approveReads,
  denyAll,
  describePermissionDecision,
  observed,
  type PermissionPolicy,
  answerElicitations,
  readElicitationAnswers,
  urlConsent,
  type ClientConnection,
  type ElicitationPolicy,
} from '@acp-kit/client';
import { agentContext, remoteAgentCommand, resolveAgentCommand } from '../agent-command.js';
import { CliError, toCliError, usageError } from '../errors.js';
import { ExitCode, exitCodeForTurn } from '../exit-codes.js';
import type { RunFlags } from '../flags.js';
import { NdjsonRunReporter, TextRunReporter, type RunReporter } from '../render/run-reporter.js';
import {
  handleSignals,
  openAgent,
  openSession,
  protocolChoice,
  terminalNamer,
  type OpenAgent,
} from '../session-runner.js';
import { withProfile } from '../config-file.js';
import { applyConfigRequest, configRequestOf, hasConfigRequest } from '../session-config.js';
import { colorEnabled, createStyle } from '../style.js';
import { watchToolTimeouts } from '../tool-timeout.js';

/** What `run` uses of a session: a {@link ClientSession}, or with `--agent-url` one that survives reconnects. */
type RunSession = Pick<
  ClientSession,
  'sessionId' | 'state' | 'onUpdate' | 'prompt' | 'clientTerminal' | 'setConfigOption' | 'setMode' | 'cancelToolCall'
>;

/** A {@link ReconnectingSession} as `run` sees it (terminals of the underlying session in use now). */
function runSessionOf(s: ReconnectingSession): RunSession {
  return {
    get sessionId() {
      return s.sessionId;
    },
    get state() {
      return s.state;
    },
    onUpdate: (listener) => s.onUpdate(listener),
    prompt: (content, options) => s.prompt(content, options),
    clientTerminal: (terminalId) => s.session.clientTerminal(terminalId),
    setConfigOption: (configId, value) => s.session.setConfigOption(configId, value),
    setMode: (modeId) => s.session.setMode(modeId),
    cancelToolCall: (toolCallId) => s.session.cancelToolCall(toolCallId),
  };
}

function policyFor(flags: RunFlags): { name: string; policy: PermissionPolicy } {
  if (flags.approveAll) return { name: 'approve-all', policy: approveAll() };
  if (flags.denyAll) return { name: 'deny-all', policy: denyAll() };
  return { name: 'approve-reads', policy: approveReads() };
}

/**
 * How `run` answers the agent's questions (elicitations): forms from `--answers` and `--answer`
 * (declined when a required field has no answer or an answer does not fit); urls printed with
 * their host on stderr and accepted only with `--accept-urls` (ACP-ALL-ELIC-06). Without any
 * answers every form is declined.
 */
export async function elicitationPolicyFor(
  flags: Pick<RunFlags, 'answer' | 'answers' | 'acceptUrls'>,
  stderr: (s: string) => void,
): Promise<ElicitationPolicy> {
  const answers: Record<string, unknown> = flags.answers ? await readAnswersFile(flags.answers) : {};
  for (const pair of flags.answer ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usageError(`--answer ${JSON.stringify(pair)}: expected key=value`);
    answers[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return answerElicitations(answers, {
    url: urlConsent({ consent: flags.acceptUrls === true, print: (line) => stderr(`acp-kit: ${line}\n`) }),
  });
}

async function readAnswersFile(path: string): Promise<Record<string, unknown>> {
  try {
    return await readElicitationAnswers(path);
  } catch (e) {
    throw usageError(`--answers: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Reports every elicitation and auth state change (`auth/status_update`) of `conn` (and of the
 * connections a reconnect replaces it with).
 */
function watchElicitations(a: OpenAgent, reporter: RunReporter): void {
  const watch = (c: ClientConnection): void => {
    c.on('elicitation', (e) => reporter.elicitation(e));
    c.on('authStatus', (s) => reporter.authStatus(s));
  };
  watch(a.conn);
  a.reconnecting?.on('reconnected', ({ connection }) => watch(connection));
}

/** The reporter `--json` asks for, writing to the process's stdout/stderr. */
export function reporterFor(json: boolean): RunReporter {
  const streams = {
    stdout: (s: string): void => void process.stdout.write(s),
    stderr: (s: string): void => void process.stderr.write(s),
    style: createStyle(!json && colorEnabled(process.stdout)),
    errStyle: createStyle(colorEnabled(process.stderr)),
  };
  return json ? new NdjsonRunReporter(streams) : new TextRunReporter(streams);
}

/**
 * Reports each decision (made once, by the policy; the report names the chosen option); a
 * request answered `cancelled` because we cancelled the turn is not counted as a policy rejection.
 */
function reportingPolicy(
  basePolicy: PermissionPolicy,
  policyName: string,
  reporter: RunReporter,
  onRejected: () => void,
): PermissionPolicy {
  return observed(basePolicy, ({ request, outcome, option, cancelled: byCancel }) => {
    const allowed = !!option && option.kind.startsWith('allow');
    if (!allowed && !byCancel) onRejected();
    const reason = byCancel ? 'turn cancelled' : `policy --${policyName}`;
    const decision = `${describePermissionDecision(request, outcome, option)} [${byCancel ? 'turn cancelled' : `policy ${policyName}`}]`;
    reporter.permission({ sessionId: request.sessionId, request, outcome, allowed, reason, decision });
  });
}

/**
 * `acp-kit run`: one prompt, non-interactive. Streams the turn through the reporter (text or
 * NDJSON) and returns the exit code (see exit-codes.ts). The connection is closed on every path,
 * which ends the agent.
 */
export async function runCommand(
  prompt: string,
  given: RunFlags,
  reporter: RunReporter = reporterFor(given.json === true),
): Promise<number> {
  // flags on the command line win over the profile's values
  const flags = await withProfile(given);
  const { name: policyName, policy: basePolicy } = policyFor(flags);

  let session: RunSession | undefined;
  let open: OpenAgent | undefined;
  let watching: ReturnType<typeof watchToolTimeoutsFor>;
  let rejected = 0;
  let interrupted = false;
  /** set once a second Ctrl-C or SIGTERM is closing everything down */
  let leaving: number | undefined;
  const abort = new AbortController();

  const policy = reportingPolicy(basePolicy, policyName, reporter, () => {
    rejected++;
  });
  /** the turn's token counts, from the `session_info_update` the built-in agent ends it with (replays excluded) */
  let tokens: TurnTokenUsage | undefined;
  const known = () => ({ usage: session?.state.usage, tokens, rejectedPermissions: rejected });

  const uninstall = handleSignals(
    () => {
      interrupted = true;
      reporter.cancelling();
      abort.abort();
    },
    (signal) => {
      // second Ctrl-C or SIGTERM: close (kills the agent's process group) and leave
      const code = signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated;
      leaving = code;
      reporter.failed(new CliError('interrupted', code, `interrupted by ${signal}`), known());
      void (open ? open.close() : Promise.resolve()).finally(() => process.exit(code));
    },
  );

  try {
    const terminal = terminalNamer(() => session);
    open = await openAgent(flags, {
      permissionPolicy: policy,
      elicitation: await elicitationPolicyFor(flags, (line) => void process.stderr.write(line)),
      // the first Ctrl-C while connecting gives up at once (the agent is killed)
      signal: abort.signal,
      // v1: the agent runs commands through us; show their output live
      terminals: {
        onOutput: (terminalId, text) => reporter.clientTerminalOutput(terminal(terminalId), text),
        onExit: (terminalId, status) => reporter.clientTerminalExit(terminal(terminalId), status),
      },
    });
    const a = open;
    reportConnected(reporter, a);
    watchElicitations(a, reporter);
    if (abort.signal.aborted)
      throw new CliError('interrupted', ExitCode.Interrupted, 'interrupted before the prompt was sent');
    const s = await startSession(
      a,
      { resumeId: flags.session, signal: abort.signal },
      reporter,
      (t) => (tokens = t),
      (opened) => (session = opened),
    );
    await configureSession(s, flags, a, reporter);
    if (abort.signal.aborted)
      throw new CliError('interrupted', ExitCode.Interrupted, 'interrupted before the prompt was sent');

    let result;
    try {
      watching = watchToolTimeoutsFor(s, flags.toolTimeout, reporter);
      result = await s.prompt(prompt, { signal: abort.signal });
      // a cancel's answer may come after the turn's end: its report goes before the result
      await watching?.settled();
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    return reportTurnEnd(reporter, s, result, { interrupted, rejected, tokens, policyName });
  } catch (e) {
    // the signal handler reports and exits; the prompt failing because we closed is expected
    if (leaving !== undefined) return leaving;
    const ctx = open?.ctx ?? safeContext(flags);
    let err = toCliError(e, ctx);
    if (interrupted && err.exitCode !== ExitCode.Usage)
      err = new CliError('interrupted', ExitCode.Interrupted, 'interrupted (Ctrl-C)', { cause: e });
    reporter.failed(err, known());
    return err.exitCode;
  } finally {
    watching?.stop();
    uninstall();
    await open?.close();
  }
}

/**
 * `--config`, `--mode`, `--model` (another agent's session model; the built-in agent's `--model`
 * chose its backend at launch): applied to the open session before the prompt, then the resulting
 * config state is reported. Unknown ids and values are usage errors (session-config.ts).
 */
async function configureSession(s: RunSession, flags: RunFlags, a: OpenAgent, reporter: RunReporter): Promise<void> {
  const req = configRequestOf(flags, a.agent.builtIn);
  if (!hasConfigRequest(req)) return;
  let applied;
  try {
    applied = await applyConfigRequest(s, req);
  } catch (e) {
    throw e instanceof CliError ? e : toCliError(e, a.ctx);
  }
  reporter.config({
    applied,
    configOptions: s.state.configOptions,
    ...(s.state.modes ? { modes: s.state.modes } : {}),
  });
}

/** `--tool-timeout`: cancels (tool_call/cancel) each tool call of the turn that runs longer, and reports it. */
function watchToolTimeoutsFor(s: RunSession, timeoutMs: number | undefined, reporter: RunReporter) {
  if (timeoutMs === undefined) return undefined;
  return watchToolTimeouts(s, timeoutMs, (r) => reporter.toolTimeout(s.sessionId, r));
}

/** Reports the end of the prompted turn and gives the exit code it stands for. */
function reportTurnEnd(
  reporter: RunReporter,
  s: RunSession,
  result: Awaited<ReturnType<RunSession['prompt']>>,
  turn: { interrupted: boolean; rejected: number; tokens: TurnTokenUsage | undefined; policyName: string },
): number {
  // a v1 agent refusing the prompt with -32000 resolves as an error stop: still an auth problem
  if (result.error?.code === ErrorCode.AuthRequired) throw AcpError.fromObject(result.error);
  const stopReason = result.stopReason;
  let code: number = exitCodeForTurn(stopReason, turn.rejected);
  if (turn.interrupted && (stopReason === 'cancelled' || code === ExitCode.Ok || code === ExitCode.PermissionDenied))
    code = ExitCode.Interrupted;
  reporter.finished({
    stopReason,
    exitCode: code,
    error: result.error,
    usage: s.state.usage,
    // an agent that reports neither usage_update nor acp-kit's usage metadata may still put the
    // turn's tokens on the v1 prompt result (unstable PromptResponse.usage)
    tokens: turn.tokens ?? (s.state.usage ? undefined : tokensOfResult(result.usage)),
    rejectedPermissions: turn.rejected,
    policyName: turn.policyName,
  });
  return code;
}

/** The connection line: what the agent said about itself in its `initialize` answer. */
function reportConnected(reporter: RunReporter, a: OpenAgent): void {
  reporter.connected({
    protocolVersion: a.conn.protocolVersion,
    agentInfo: a.conn.agentInfo,
    agentCapabilities: a.conn.agentCapabilities,
    authMethods: a.conn.authMethods,
    agent: [a.agent.command, ...a.agent.args],
    agentDisplay: a.agent.display,
    ...(a.agent.model ? { model: a.agent.model } : {}),
    cwd: a.cwd,
  });
}

/**
 * Opens the session (new, or `--session` loaded/resumed with its history replayed; through the reconnecting remote one with `--agent-url`) and streams its updates to the
 * reporter; Ctrl-C (`signal`) while the session is still opening withdraws the request
 * (`$/cancel_request`), local or remote. `opened` hears of the session before any update is reported (the Ctrl-C report and
 * terminal names read it); `onTokens` gets the turn's token counts, from the
 * `session_info_update` the built-in agent ends it with.
 */
async function startSession(
  a: OpenAgent,
  { resumeId, signal }: { resumeId: string | undefined; signal: AbortSignal },
  reporter: RunReporter,
  onTokens: (t: TurnTokenUsage) => void,
  opened: (s: RunSession) => void,
): Promise<RunSession> {
  // what the agent sends while the session opens (e.g. available_commands_update before or
  // with the session/new answer) is shown after the session line, in wire order
  const early: AnySessionUpdate[] = [];
  let mode: 'new' | 'load' | 'resume' = 'new';
  let s: RunSession;
  if (a.reconnecting) {
    const onUpdate = (u: AnySessionUpdate): void => void early.push(u);
    try {
      s = runSessionOf(
        resumeId === undefined
          ? await a.reconnecting.newSession({ cwd: a.cwd, mcpServers: a.mcpServers, onUpdate, signal })
          : await a.reconnecting.resumeSession(resumeId, {
              cwd: a.cwd,
              mcpServers: a.mcpServers,
              replay: true,
              onUpdate,
              signal,
            }),
      );
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    if (resumeId !== undefined) mode = a.conn.replayMethod === 'session/load' ? 'load' : 'resume';
  } else {
    const o = await openSession(a, resumeId, (u) => early.push(u), signal);
    s = o.session;
    mode = o.mode;
  }
  opened(s);
  reporter.session({ sessionId: s.sessionId, cwd: a.cwd, mode });
  for (const u of early) reporter.update(s.sessionId, u, s.state);
  s.onUpdate((u, state) => {
    if (u.sessionUpdate === 'session_info_update') {
      const t = readTurnTokenUsage(u._meta);
      if (t) onTokens(t);
    }
    reporter.update(s.sessionId, u, state);
  });
  return s;
}

function safeContext(flags: RunFlags) {
  try {
    const p = protocolChoice(flags.protocol);
    const agent =
      flags.agentUrl !== undefined
        ? remoteAgentCommand(flags.agentUrl, flags.agent, flags)
        : resolveAgentCommand(flags.agent, process.env, flags);
    return agentContext(agent, p === 'auto' ? undefined : p);
  } catch {
    return { commandLine: flags.agent ?? '(built-in agent)', command: flags.agent ?? 'acp-kit' };
  }
}

/** The stop line's token counts from the v1 prompt result's `usage` (unstable). */
function tokensOfResult(u: TurnUsage | undefined): TurnTokenUsage | undefined {
  return u ? { inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens } : undefined;
}

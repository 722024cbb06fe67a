import {
  type ClientSession,
  approveAll, approveReads, decidePermission, denyAll, describePermissionDecision, selectedOption, type PermissionPolicy,
} from '../../client/index.js';
import { agentContext, resolveAgentCommand } from '../agent-command.js';
import { CliError, formatCliError, toCliError } from '../errors.js';
import { ExitCode, exitCodeForTurn } from '../exit-codes.js';
import type { RunFlags } from '../flags.js';
import { NdjsonWriter } from '../render/ndjson-events.js';
import { TranscriptRenderer } from '../render/transcript.js';
import { handleSignals, openAgent, openSession, protocolChoice, type OpenAgent } from '../session-runner.js';
import { colorEnabled, createStyle, stripAnsi } from '../style.js';

function policyFor(flags: RunFlags): { name: string; policy: PermissionPolicy } {
  if (flags.approveAll) return { name: 'approve-all', policy: approveAll() };
  if (flags.denyAll) return { name: 'deny-all', policy: denyAll() };
  return { name: 'approve-reads', policy: approveReads() };
}

/** Is this outcome an approval (an offered `allow_*` option)? */
function isAllowed(req: Parameters<PermissionPolicy>[0], outcome: Awaited<ReturnType<PermissionPolicy>>): boolean {
  const o = selectedOption(req, outcome);
  return !!o && o.kind.startsWith('allow');
}

/**
 * `acp-kit run`: one prompt, non-interactive. Streams the turn as text or NDJSON and returns the
 * exit code (see exit-codes.ts). The connection is closed on every path, which ends the agent.
 */
export async function runCommand(prompt: string, flags: RunFlags): Promise<number> {
  const json = flags.json === true;
  const write = (s: string): void => void process.stdout.write(s);
  const ndjson = new NdjsonWriter(write);
  const errStyle = createStyle(colorEnabled(process.stderr));
  const style = createStyle(!json && colorEnabled(process.stdout));
  const { name: policyName, policy: basePolicy } = policyFor(flags);

  let renderer: TranscriptRenderer | undefined;
  let session: ClientSession | undefined;
  let open: OpenAgent | undefined;
  let rejected = 0;
  let interrupted = false;
  let finished = false;
  /** set once a second Ctrl-C or SIGTERM is closing everything down */
  let leaving: number | undefined;
  const abort = new AbortController();

  // Wraps the chosen policy to report each decision; a request answered `cancelled` because
  // we cancelled the turn is not counted as a policy rejection.
  const policy: PermissionPolicy = async (request, ctx) => {
    const outcome = await decidePermission(basePolicy, request, ctx);
    const allowed = isAllowed(request, outcome);
    const byCancel = ctx.signal.aborted;
    if (!allowed && !byCancel) rejected++;
    const decision = `${describePermissionDecision(request, outcome)} [${byCancel ? 'turn cancelled' : `policy ${policyName}`}]`;
    if (json) ndjson.emit({ type: 'permission', sessionId: request.sessionId, request, outcome, allowed, decision });
    else renderer?.permission(request.title, { allowed, text: byCancel ? 'turn cancelled' : `policy --${policyName}` });
    return outcome;
  };

  const emitResult = (stopReason: string | null, exitCode: number, error?: CliError | { code: number; message: string; data?: unknown }): void => {
    if (!json || finished) return;
    finished = true;
    const usage = session?.state.usage;
    ndjson.emit({
      type: 'result',
      stopReason,
      exitCode,
      rejectedPermissions: rejected,
      ...(usage ? { usage: { used: usage.used, size: usage.size, ...(usage.cost ? { cost: usage.cost } : {}) } } : {}),
      ...(error ? { error: error instanceof CliError ? error.toJSON() : error } : {}),
    });
  };

  const uninstall = handleSignals(
    () => {
      interrupted = true;
      process.stderr.write(errStyle.yellow('\nacp-kit: cancelling the turn… (Ctrl-C again to quit now)\n'));
      abort.abort();
    },
    (signal) => {
      // second Ctrl-C or SIGTERM: close (kills the agent's process group) and leave
      const code = signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated;
      leaving = code;
      emitResult(null, code, new CliError('interrupted', code, `interrupted by ${signal}`));
      void (open ? open.close() : Promise.resolve()).finally(() => process.exit(code));
    },
  );

  try {
    const terminalsShown = new Set<string>();
    open = await openAgent(flags, {
      permissionPolicy: policy,
      // the first Ctrl-C while connecting gives up at once (the agent is killed)
      signal: abort.signal,
      terminals: {
        // v1: the agent runs commands through us; show their output live
        onOutput: (terminalId, text) => {
          if (json) {
            ndjson.emit({ type: 'client_terminal', sessionId: session?.sessionId ?? '', terminalId, output: text });
            return;
          }
          if (!renderer) return;
          if (!terminalsShown.has(terminalId)) {
            terminalsShown.add(terminalId);
            const t = session?.clientTerminal(terminalId);
            if (t) renderer.line(style.dim(`    $ ${stripAnsi([t.command, ...t.args].join(' '))}`));
          }
          renderer.line(style.dim(stripAnsi(text).replace(/\n$/, '').replace(/^/gm, '    │ ')));
        },
        onExit: (terminalId, status) => {
          if (json) {
            ndjson.emit({ type: 'client_terminal', sessionId: session?.sessionId ?? '', terminalId, exitStatus: status });
            return;
          }
          renderer?.line(style.dim(`    ${status.signal ? `killed by ${status.signal}` : `exit code ${status.exitCode ?? '?'}`}`));
        },
      },
    });
    const a = open;
    renderer = json ? undefined : new TranscriptRenderer({ write, style, cwd: a.cwd });
    const agentName = a.conn.agentInfo ? `${a.conn.agentInfo.title ?? a.conn.agentInfo.name} ${a.conn.agentInfo.version}` : a.agent.display;
    if (json) {
      ndjson.emit({
        type: 'connection',
        protocolVersion: a.conn.protocolVersion,
        agentInfo: a.conn.agentInfo,
        agentCapabilities: a.conn.agentCapabilities,
        authMethods: a.conn.authMethods,
        agent: [a.agent.command, ...a.agent.args],
      });
    } else {
      process.stderr.write(errStyle.dim(`acp-kit: ${agentName} · protocol v${a.conn.protocolVersion} · ${a.cwd}\n`));
    }
    if (abort.signal.aborted) throw new CliError('interrupted', ExitCode.Interrupted, 'interrupted before the prompt was sent');

    const opened = await openSession(a);
    session = opened.session;
    const s = session;
    if (json) ndjson.emit({ type: 'session', sessionId: s.sessionId, cwd: a.cwd, mode: opened.mode });
    s.onUpdate((u, state) => {
      if (json) ndjson.emit({ type: 'update', sessionId: s.sessionId, update: u });
      else renderer!.onUpdate(u, state);
    });
    if (abort.signal.aborted) throw new CliError('interrupted', ExitCode.Interrupted, 'interrupted before the prompt was sent');

    let result;
    try {
      result = await s.prompt(prompt, { signal: abort.signal });
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    const stopReason = result.stopReason;
    let code: number = exitCodeForTurn(stopReason, rejected);
    if (interrupted && (stopReason === 'cancelled' || code === ExitCode.Ok || code === ExitCode.PermissionDenied)) code = ExitCode.Interrupted;
    if (json) emitResult(stopReason, code, result.error);
    else {
      renderer!.stop(stopReason, result.error, s.state.usage);
      if (code === ExitCode.PermissionDenied) {
        process.stderr.write(
          `${errStyle.yellow('acp-kit:')} the --${policyName} policy rejected ${rejected} permission request${rejected === 1 ? '' : 's'}; exit code ${code}.\n` +
            `${errStyle.yellow('hint:')} re-run with --approve-all to let the agent ${policyName === 'approve-reads' ? 'edit files and run commands' : 'act'}.\n`,
        );
      }
    }
    return code;
  } catch (e) {
    // the signal handler reports and exits; the prompt failing because we closed is expected
    if (leaving !== undefined) return leaving;
    const ctx = open?.ctx ?? safeContext(flags);
    let err = toCliError(e, ctx);
    if (interrupted && err.exitCode !== ExitCode.Usage) err = new CliError('interrupted', ExitCode.Interrupted, 'interrupted (Ctrl-C)', { cause: e });
    emitResult(null, err.exitCode, err);
    if (err.kind !== 'interrupted' || !json) process.stderr.write(formatCliError(err, errStyle));
    return err.exitCode;
  } finally {
    uninstall();
    await open?.close();
  }
}

function safeContext(flags: RunFlags) {
  try {
    const p = protocolChoice(flags.protocol);
    return agentContext(resolveAgentCommand(flags.agent), p === 'auto' ? undefined : p);
  } catch {
    return { commandLine: flags.agent ?? '(built-in agent)', command: flags.agent ?? 'acp-kit' };
  }
}

import {
  approveAll,
  denyAll,
  describePermissionDecision,
  interactive,
  READ_ONLY_KINDS,
  remembering,
  rules,
  selectedOption,
  type ElicitationContext,
  type ElicitationDecision,
  type ElicitationPolicy,
  type PermissionPolicy,
  type RestoreSessionOptions,
} from '@acp-kit/client';
import type { CreateElicitationRequest, SessionInfo } from '@acp-kit/protocol';
import { ConnectionClosedError } from '@acp-kit/protocol/rpc';
import { CliError, formatCliError, toCliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { ChatFlags } from '../flags.js';
import { handleSignals, openAgent, openSession, type OpenAgent } from '../session-runner.js';
import { withProfile } from '../config-file.js';
import { applyConfigRequest, configRequestOf, hasConfigRequest } from '../session-config.js';
import { colorEnabled, createStyle } from '../style.js';
import { ChatController, chatSessionOf, type ChatSession } from '../ui/chat-controller.js';

/**
 * Loads ink with the environment it should see. Colour: ink's chalk reads FORCE_COLOR when it is
 * first imported, so NO_COLOR is translated before that. CI: ink renders only static output when
 * `CI` is set, but `chat` runs only on a real terminal, so it is hidden from ink for the import.
 * DEV=true would make ink connect to React devtools (not a dependency) and read its package.json,
 * which the CLI bundle does not carry (scripts/bundle.mjs): hidden too.
 */
async function loadInk(): Promise<{ ink: typeof import('ink'); react: typeof import('react') }> {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') process.env.FORCE_COLOR = '0';
  const saved = {
    CI: process.env.CI,
    CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION,
    DEV: process.env.DEV,
  };
  for (const k of Object.keys(saved)) delete process.env[k];
  try {
    // React is CommonJS: its default export is the whole module, in Node and in the CLI bundle alike
    const [ink, { default: react }] = await Promise.all([import('ink'), import('react')]);
    return { ink, react };
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  }
}

/**
 * Opens the chat's session. With `--agent-url` it is a reconnecting session: a dropped connection
 * is re-established and the session resumed with a replay, and the controller goes on from the
 * resumed state (see {@link ChatController.reconnected}).
 */
async function openChatSession(
  a: OpenAgent,
  resumeId: string | undefined,
  onUpdate: RestoreSessionOptions['onUpdate'],
): Promise<ChatSession> {
  const rc = a.reconnecting;
  if (!rc) return (await openSession(a, resumeId, onUpdate)).session;
  try {
    const s =
      resumeId === undefined
        ? await rc.newSession({ cwd: a.cwd, mcpServers: a.mcpServers, onUpdate })
        : await rc.resumeSession(resumeId, { cwd: a.cwd, mcpServers: a.mcpServers, replay: true, onUpdate });
    return chatSessionOf(s);
  } catch (e) {
    throw toCliError(e, a.ctx);
  }
}

/**
 * The chat's permission policy: the user's pick through the picker, "always" answers remembered
 * for the session, optional auto-approval in front; every decision is noted in the feed. The
 * controller exists only once the agent is connected; a request before that (none is expected:
 * requests come with a turn) is answered cancelled.
 */
function chatPolicy(flags: ChatFlags, controller: () => ChatController | undefined): PermissionPolicy {
  const ask = interactive(async (req, ctx) => controller()?.ask(req, ctx) ?? 'cancelled');
  const front: PermissionPolicy = flags.approveAll
    ? approveAll()
    : flags.denyAll
      ? denyAll()
      : flags.approveReads
        ? rules([{ match: { kind: READ_ONLY_KINDS }, decision: 'allow' }], ask)
        : ask;
  const remembered = remembering(front);
  return async (request, ctx) => {
    const outcome = await remembered(request, ctx);
    const o = selectedOption(request, outcome);
    controller()?.decided(request, {
      kind: 'permission',
      text: `${o?.kind.startsWith('allow') ? '✓' : '✗'} ${describePermissionDecision(request, outcome)}`,
    });
    return outcome;
  };
}

/**
 * The chat answers both elicitation modes (and so advertises both, ACP-ALL-ELIC-01) through its
 * form; a question before the controller exists (none is expected) is cancelled.
 */
function chatElicitation(controller: () => ChatController | undefined): ElicitationPolicy {
  const ask = (req: CreateElicitationRequest, ctx: ElicitationContext): Promise<ElicitationDecision> =>
    controller()?.elicit(req, ctx) ??
    Promise.resolve({ response: { action: 'cancel' }, reason: 'the chat is not ready' });
  return { form: ask, url: ask };
}

/** The chat's controller, headed with what the agent said about itself. */
function newController(a: OpenAgent): ChatController {
  const info = a.conn.agentInfo;
  return new ChatController(
    {
      agentLabel: info ? `${info.title ?? info.name} ${info.version}` : a.agent.display,
      protocolVersion: a.conn.protocolVersion,
      cwd: a.cwd,
      ...(a.agent.model ? { model: a.agent.model } : {}),
    },
    a.ctx,
  );
}

/** `--resume <id>`: that id; a bare `--resume`: the one picked from the agent's list (none when the list is empty). */
async function sessionToResume(flags: ChatFlags, a: OpenAgent, c: ChatController): Promise<string | undefined> {
  if (flags.resume !== true) return flags.resume;
  let sessions: SessionInfo[] = [];
  try {
    sessions = await a.conn.listAllSessions({ cwd: a.cwd });
  } catch (e) {
    throw toCliError(e, a.ctx);
  }
  return sessions.length > 0 ? c.pickSession(sessions) : undefined;
}

/** `--config`, `--mode`, `--model` (another agent's): applied to the opened session; a bad id is a usage error. */
async function configureChat(session: ChatSession, flags: ChatFlags, a: OpenAgent): Promise<void> {
  const req = configRequestOf(flags, a.agent.builtIn);
  if (!hasConfigRequest(req)) return;
  try {
    await applyConfigRequest(session, req);
  } catch (e) {
    throw e instanceof CliError ? e : toCliError(e, a.ctx);
  }
}

/** `acp-kit chat`: the interactive client. */
export async function chatCommand(given: ChatFlags): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw usageError(
      'chat needs an interactive terminal (stdin and stdout must be a TTY)',
      'Use `acp-kit run "<prompt>"` in scripts and pipes.',
    );
  }
  // flags on the command line win over the profile's values
  const flags = await withProfile(given);
  const errStyle = createStyle(colorEnabled(process.stderr));
  const { ink, react: React } = await loadInk();
  const { App } = await import('../ui/App.js');

  let open: OpenAgent | undefined;
  let controller: ChatController | undefined;
  let unmount: (() => void) | undefined;
  const leave = (code: number): void => {
    unmount?.();
    void (open ? open.close() : Promise.resolve()).finally(() => process.exit(code));
  };
  // raw mode turns Ctrl-C into a key (handled by the app); these catch kill -INT/-TERM and hangups
  const uninstall = handleSignals(
    () => (controller ? controller.interrupt() : leave(ExitCode.Interrupted)),
    (signal) => leave(signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated),
  );

  try {
    open = await openAgent(flags, {
      permissionPolicy: chatPolicy(flags, () => controller),
      elicitation: chatElicitation(() => controller),
      terminals: {
        onOutput: (id, text) => controller?.onTerminalOutput(id, text),
        onExit: (id, status) => controller?.onTerminalExit(id, status),
      },
      // --agent-url: the reconnect line goes to the chat's feed, not to stderr under the screen
      onReconnected: (message) => controller?.reconnected(message),
    });
    const a = open;
    const c = (controller = newController(a));
    // one ink instance for the whole chat (picker, loading, chat screen)
    const inst = ink.render(React.createElement(App, { view: c.view, actions: c }), { exitOnCtrlC: false });
    unmount = () => {
      // drop the transient "starting…"/picker frame so that the error stands alone
      if (!c.view.state) inst.clear();
      inst.unmount();
    };

    const resumeId = await sessionToResume(flags, a, c);
    // what the agent sends while the session opens (with the session/new answer, during a replay) reaches the view too
    const session = await openChatSession(a, resumeId, c.opening);
    // before attaching: the header shows the settings the flags chose
    await configureChat(session, flags, a);
    c.attach(session);
    if (resumeId) c.note({ kind: 'info', text: `resumed session ${resumeId}` });
    c.followAuthStatus(a.conn);
    const rc = a.reconnecting;
    const resumeCommand = `acp-kit chat${rc ? ` --agent-url ${a.ctx.commandLine}` : ''} --resume ${session.sessionId}`;
    if (rc) {
      // a drop is shown while the client reconnects; only giving up (or losing the session) ends the chat
      c.followReconnects(rc, resumeCommand);
    } else {
      // the agent going away ends the chat with its error
      void a.conn.closed.then((closeInfo) => {
        if (closeInfo.reason !== 'closed locally')
          c.exit(ExitCode.AgentFailed, toCliError(new ConnectionClosedError(closeInfo), a.ctx));
      });
    }
    const exit = await c.whenExited();
    inst.unmount();
    await inst.waitUntilExit().catch(() => undefined);
    if (exit.error) process.stderr.write(formatCliError(exit.error, errStyle));
    else process.stdout.write(errStyle.dim(`session ${session.sessionId} — resume with: ${resumeCommand}\n`));
    return exit.code;
  } catch (e) {
    unmount?.();
    const err =
      e instanceof CliError
        ? e
        : toCliError(
            e,
            open?.ctx ?? { commandLine: flags.agent ?? '(built-in agent)', command: flags.agent ?? 'acp-kit' },
          );
    process.stderr.write(formatCliError(err, errStyle));
    return err.exitCode;
  } finally {
    uninstall();
    await open?.close();
  }
}

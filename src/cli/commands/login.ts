import { spawn } from 'node:child_process';
import {
  authMethodsFromError,
  mergeAuthMethods,
  shellCommandLine,
  terminalLoginCommand,
  type TerminalLoginCommand,
} from '@acp-kit/client';
import { AcpError, ErrorCode, type AuthMethod } from '@acp-kit/protocol';
import { CliError, formatCliError, toCliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { AgentFlags } from '../program.js';
import { openAgent, type OpenAgent } from '../session-runner.js';
import { colorEnabled, createStyle } from '../style.js';

/**
 * `acp-kit login [METHOD]`: runs the agent's terminal login (the `_meta["terminal-auth"]`
 * command, or the agent itself with a `type: "terminal"` method's args) with the terminal
 * attached, then connects again and opens a session to confirm. Exit 0 when the agent accepts
 * the login, 11 when it still asks for authentication.
 */
export async function loginCommand(methodId: string | undefined, flags: AgentFlags): Promise<number> {
  const errStyle = createStyle(colorEnabled(process.stderr));
  const say = (s: string): void => void process.stderr.write(`${errStyle.dim(`acp-kit: ${s}`)}\n`);
  let open: OpenAgent | undefined;
  try {
    open = await openAgent(flags);
    const a = open;
    let methods: AuthMethod[] = [...a.conn.authMethods];
    const agent = { command: a.agent.command, args: a.agent.args };
    const cwd = a.cwd;
    // agents that list their logins only in the -32000 error (kimi): ask for a session to see them
    let alreadyIn = false;
    if (!methods.some((m) => terminalLoginCommand(m, agent))) {
      const outcome = await probe(a);
      if (outcome === 'ok') alreadyIn = methodId === undefined;
      else methods = mergeAuthMethods(methods, outcome);
    }
    await a.close();
    open = undefined;
    if (alreadyIn) {
      say('the agent opened a session without a login: already logged in (name a METHOD to log in anyway)');
      return ExitCode.Ok;
    }
    const logins = methods
      .map((m) => ({ m, cmd: terminalLoginCommand(m, agent) }))
      .filter((x): x is { m: AuthMethod; cmd: TerminalLoginCommand } => !!x.cmd);
    const list = logins.map(({ m, cmd }) => `  ${m.methodId}: ${shellCommandLine(cmd)}`).join('\n');
    let chosen: { m: AuthMethod; cmd: TerminalLoginCommand } | undefined;
    if (methodId !== undefined) {
      chosen = logins.find((l) => l.m.methodId === methodId);
      if (!chosen) {
        const known = methods.find((m) => m.methodId === methodId);
        throw usageError(
          known
            ? `auth method ${JSON.stringify(methodId)} has no terminal login command`
            : `the agent offers no auth method ${JSON.stringify(methodId)}`,
          logins.length
            ? `Terminal logins the agent offers:\n${list}`
            : 'The agent offers no terminal login; use its own login tool.',
        );
      }
    } else {
      const [only, ...more] = logins;
      if (!only) {
        throw new CliError('auth_unavailable', ExitCode.Unsupported, 'the agent offers no terminal login command', {
          hint: "Log in with the agent's own tool (or set the API key it expects in the environment).",
        });
      }
      if (more.length > 0)
        throw usageError(
          'the agent offers several terminal logins: name one as METHOD',
          `acp-kit login [--agent ...] METHOD, with METHOD one of:\n${list}`,
        );
      chosen = only;
    }
    say(`running ${chosen.cmd.label ?? chosen.m.name}: ${shellCommandLine(chosen.cmd)}`);
    const code = await runInteractive(chosen.cmd, cwd);
    if (code !== 0) {
      throw new CliError(
        'login_failed',
        ExitCode.AuthRequired,
        `the login command exited with ${code}: ${shellCommandLine(chosen.cmd)}`,
        {
          hint: 'Run it yourself to see what went wrong, then try again.',
        },
      );
    }
    // confirm: a fresh connection must now open a session
    open = await openAgent(flags);
    const after = await probe(open);
    if (after !== 'ok')
      throw toCliError(
        new AcpError(ErrorCode.AuthRequired, 'the agent still asks for authentication after the login'),
        open.ctx,
      );
    say('logged in: the agent opened a session');
    return ExitCode.Ok;
  } catch (e) {
    const err = toCliError(
      e,
      open?.ctx ?? { commandLine: flags.agent ?? '(built-in agent)', command: flags.agent ?? 'acp-kit' },
    );
    process.stderr.write(formatCliError(err, errStyle));
    return err.exitCode;
  } finally {
    await open?.close();
  }
}

/** Opens (and closes) a session: `ok`, or the auth methods of a -32000 answer; other errors throw. */
async function probe(a: OpenAgent): Promise<'ok' | AuthMethod[]> {
  try {
    const s = await a.conn.newSession({ cwd: a.cwd });
    if (a.conn.agentCapabilities.session?.close) await a.conn.closeSession(s.sessionId).catch(() => undefined);
    return 'ok';
  } catch (e) {
    if (e instanceof AcpError && e.code === ErrorCode.AuthRequired) return authMethodsFromError(e);
    throw e;
  }
}

/** Runs the login with stdin/stdout/stderr inherited (it may prompt, open a browser...). */
function runInteractive(cmd: TerminalLoginCommand, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command, cmd.args, { stdio: 'inherit', cwd, env: { ...process.env, ...cmd.env } });
    child.on('error', (e) =>
      reject(
        new CliError(
          'login_failed',
          ExitCode.AgentFailed,
          `could not start the login command ${JSON.stringify(cmd.command)}: ${e.message}`,
          { cause: e },
        ),
      ),
    );
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/**
 * `acp-kit auth status|login|logout`: the agent's unstable `auth/status` (only when it advertises
 * the `auth.status` capability), `authenticate` / `auth/login` of one of its agent methods, and
 * `logout` / `auth/logout` (only when advertised); exit code "unsupported" otherwise, naming why.
 */
import type { AuthAccount } from '@acp-kit/protocol';
import { CliError, toCliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { SessionsFlags } from '../flags.js';
import { resultLine } from '../render/ndjson-events.js';
import type { OpenAgent } from '../session-runner.js';
import { colorEnabled, createStyle, stripAnsi } from '../style.js';
import { withAgent } from './sessions.js';

/** Exit "unsupported" naming the unstable capability `method` needs, when the agent lacks it. */
export function requireCapability(
  a: OpenAgent,
  method: 'auth/status' | 'providers/list' | 'providers/set' | 'providers/disable',
  what: string,
): void {
  if (a.conn.supports(method)) return;
  const cap = method === 'auth/status' ? 'auth.status' : 'providers';
  throw new CliError('unsupported', ExitCode.Unsupported, `the agent (${a.agent.display}) does not support ${what}`, {
    hint: `${what} needs an agent that advertises the unstable ${cap} capability (${method}).`,
  });
}

function accountLine(a: AuthAccount): string {
  const who = [a.name, a.email, a.organization].filter((x): x is string => typeof x === 'string' && x !== '');
  return `  ${a.active ? '*' : '-'} ${stripAnsi(a.label)}${who.length ? `  (${stripAnsi(who.join(', '))})` : ''}`;
}

/** `acp-kit auth status`: prints the state and the accounts (`*` = in use); --json: the result line. */
export function authStatusCommand(flags: SessionsFlags): Promise<number> {
  return withAgent(flags, async (a) => {
    requireCapability(a, 'auth/status', 'auth status');
    let status;
    try {
      status = await a.conn.authStatus();
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    const accounts = status.accounts ?? [];
    if (flags.json) process.stdout.write(resultLine(ExitCode.Ok, { state: status.state, accounts }));
    else {
      const style = createStyle(colorEnabled(process.stdout));
      const lines = [`${style.bold(status.state)}  ${style.dim(a.agent.display)}`, ...accounts.map(accountLine)];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return ExitCode.Ok;
  });
}

/**
 * `acp-kit auth login <methodId>`: v1 `authenticate` / v2 `auth/login` with one of the agent's
 * methods. A terminal method is never sent (the client API refuses it): run the agent's login
 * command instead, which `acp-kit login` does.
 */
export function authLoginCommand(methodId: string, flags: SessionsFlags): Promise<number> {
  return withAgent(flags, async (a) => {
    const offered = a.conn.authMethods.map((m) => m.methodId);
    if (!offered.includes(methodId))
      throw new CliError(
        'usage',
        ExitCode.Usage,
        `the agent (${a.agent.display}) offers no auth method ${JSON.stringify(methodId)}`,
        {
          hint: offered.length ? `Its methods: ${offered.join(', ')}.` : 'It offers no auth methods.',
        },
      );
    try {
      await a.conn.authenticate(methodId);
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    if (flags.json) process.stdout.write(resultLine(ExitCode.Ok, { methodId, authenticated: true }));
    else process.stdout.write(`authenticated with ${methodId}  ${a.agent.display}\n`);
    return ExitCode.Ok;
  });
}

/** `acp-kit auth logout`: v1 `logout` (when `auth.logout` is advertised) / v2 `auth/logout` (when it has auth methods). */
export function authLogoutCommand(flags: SessionsFlags): Promise<number> {
  return withAgent(flags, async (a) => {
    if (!a.conn.supports('logout'))
      throw new CliError(
        'unsupported',
        ExitCode.Unsupported,
        `the agent (${a.agent.display}) does not support logging out`,
        {
          hint: 'logout needs a v1 agent that advertises agentCapabilities.auth.logout, or a v2 agent with authMethods (auth/logout).',
        },
      );
    try {
      await a.conn.logout();
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    if (flags.json) process.stdout.write(resultLine(ExitCode.Ok, { loggedOut: true }));
    else process.stdout.write(`logged out  ${a.agent.display}\n`);
    return ExitCode.Ok;
  });
}

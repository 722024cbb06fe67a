/**
 * `acp-kit auth status`: the agent's unstable `auth/status`, only when it advertises the
 * `auth.status` capability (exit code "unsupported" otherwise, naming it).
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

/** `acp-kit auth status`: its flags; the action (`auth.ts`) loads only when the command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addAgentOptions, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const auth = program
    .command('auth')
    .description("the agent's authentication: status (unstable auth/status), login, logout");
  addAgentOptions(
    auth
      .command('status')
      .description(
        'ask the agent whether it can start sessions without a sign-in, and which accounts it has (unstable auth/status)',
      ),
  )
    .option('--json', 'print NDJSON')
    .action(async (flags) => {
      result.code = await (await import('./auth.js')).authStatusCommand(flags);
    });
  addAgentOptions(
    auth
      .command('login')
      .description("sign in with one of the agent's auth methods (v1 authenticate, v2 auth/login)")
      .argument('<methodId>', 'the auth method (listed by the agent at initialize)'),
  )
    .option('--json', 'print NDJSON')
    .action(async (methodId, flags) => {
      result.code = await (await import('./auth.js')).authLoginCommand(methodId, flags);
    });
  addAgentOptions(auth.command('logout').description('sign out of the agent (v1 logout, v2 auth/logout)'))
    .option('--json', 'print NDJSON')
    .action(async (flags) => {
      result.code = await (await import('./auth.js')).authLogoutCommand(flags);
    });
}

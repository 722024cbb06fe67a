/** `acp-kit auth status`: its flags; the action (`auth.ts`) loads only when the command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addAgentOptions, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const auth = program.command('auth').description("the agent's authentication state (unstable auth/status)");
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
}

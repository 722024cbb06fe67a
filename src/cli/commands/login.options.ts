/** `acp-kit login`: its flags; the action (`login.ts`) loads only when the command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addAgentOptions, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  addAgentOptions(
    program
      .command('login')
      .description("run the agent's terminal login (interactive), then check that the agent accepts it")
      .argument('[method]', 'auth method id (needed when the agent offers several)'),
  ).action(async (method, flags) => {
    result.code = await (await import('./login.js')).loginCommand(method, flags);
  });
}

/** `acp-kit record`: a recorder to run as a proxy component; the action (`record.ts`) loads only when it runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('record')
    .description(
      'a proxy component (for acp-kit conduct): forward everything and record the conversation with its predecessor to a capture',
    )
    .requiredOption('--out <file>', 'the capture file to write (acp-kit NDJSON)')
    .action(async (flags) => {
      result.code = await (await import('./record.js')).recordComponentCommand(flags);
    });
}

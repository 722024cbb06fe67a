/** `acp-kit validate`: its flags; the action (`validate.ts`, the schemas) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('validate')
    .description(
      'check a capture against the schema of its protocol version and the protocol rules (exit 1 on violations)',
    )
    .argument(
      '[capture]',
      'capture file (acp-kit NDJSON or acp-devtools export); without one, run as a proxy component (acp-kit conduct) validating live traffic',
    )
    .option('--json', 'print NDJSON: one violation per line, then a result line')
    .addOption(
      new Option(
        '--side <leg>',
        'bridge captures: check only this leg, editor or agent (default: each leg against its own version)',
      ).choices(['editor', 'agent']),
    )
    .action(async (file, flags) => {
      result.code =
        file === undefined
          ? await (await import('./validate-component.js')).validateComponentCommand()
          : await (await import('./validate.js')).validateCommand(file, flags);
    });
}

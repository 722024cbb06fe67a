/** `acp-kit captures list|show|export`: their flags; the actions (`captures.ts`) load only when a command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const captures = program
    .command('captures')
    .description('list, show and export recorded captures (acp-kit proxy --record)');
  captures
    .command('list')
    .description('captures in the default folder: date, frames, size, agent')
    .option('--json', 'print NDJSON')
    .action(async (flags) => {
      result.code = await (await import('./captures.js')).capturesListCommand(flags);
    });
  captures
    .command('show')
    .description('one readable line per frame')
    .argument('<file>', 'capture file (acp-kit NDJSON or acp-devtools export)')
    .action(async (file) => {
      result.code = await (await import('./captures.js')).capturesShowCommand(file);
    });
  captures
    .command('export')
    .description('print a capture with secrets redacted (auth _meta, env values, authorization headers)')
    .argument('<file>', 'capture file')
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'json']).default('ndjson'))
    .action(async (file, flags) => {
      result.code = await (await import('./captures.js')).capturesExportCommand(file, flags);
    });
}

/** `acp-kit diff`: its flags; the action (`diff.ts`, with the diff package) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('diff')
    .description(
      'compare two captures: frames aligned ignoring ids and timing, field differences, capabilities, versions, latency deltas (exit 1 when they differ)',
    )
    .argument('<a>', 'first capture')
    .argument('<b>', 'second capture')
    .option('--json', 'print one JSON object (the CaptureDiff of acp-kit/proxy, see docs/captures.md)')
    .addOption(
      new Option(
        '--side <leg>',
        'bridge captures: the leg to read, editor (default) or agent (docs/captures.md)',
      ).choices(['editor', 'agent']),
    )
    .action(async (a, b, flags) => {
      result.code = await (await import('./diff.js')).diffCommand(a, b, flags);
    });
}

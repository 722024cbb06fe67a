/** `acp-kit stats`: its flags; the action (`stats.ts`) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('stats')
    .description(
      'per method counts, latency p50/p99/max, bytes, errors, and per turn time to first chunk, duration and stop reason',
    )
    .argument('<capture>', 'capture file (acp-kit NDJSON, acp-devtools export or Rust conductor .jsons trace)')
    .option('--json', 'print one JSON object (the CaptureStats of acp-kit/proxy)')
    .addOption(
      new Option(
        '--side <leg>',
        'bridge captures: the leg to read, editor (default) or agent (docs/captures.md)',
      ).choices(['editor', 'agent']),
    )
    .action(async (file, flags) => {
      result.code = await (await import('./stats.js')).statsCommand(file, flags);
    });
}

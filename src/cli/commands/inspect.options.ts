/** `acp-kit inspect`: its flags and help; the action (`inspect.ts`, the inspector server) loads only when the command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('inspect')
    .description(
      'a web page on 127.0.0.1 for captures and live proxies: frames, violations, latency and the session they build',
    )
    .argument('[captures...]', 'capture files (acp-kit NDJSON or acp-devtools exports)')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)')
    .option('--open', 'open the page in the default browser')
    .option('--diff', 'open the page on the diff of the two captures given')
    .addHelpText(
      'after',
      '\nThe URL holds a random token: every request needs it. Live proxies (acp-kit proxy --inspect) are listed in the page while they run.\nExample: acp-kit inspect ~/.local/share/acp-kit/captures/*.ndjson --open\n',
    )
    .action(async (files, flags) => {
      result.code = await (await import('./inspect.js')).inspectCommand(files, flags);
    });
}

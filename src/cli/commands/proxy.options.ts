/** `acp-kit proxy`: its flags and help; the action (`proxy.ts`) loads only when the command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('proxy')
    .description(
      'sit between an editor and an agent on stdio: forward every line unchanged, optionally record and validate',
    )
    .argument('[agent...]', 'the agent command, after -- (or --agent <id>)')
    .option(
      '--agent <id>',
      'an ACP Registry agent, <id> or <id>@<version>, installed on first use (acp-kit agents list)',
    )
    .option(
      '--registry <url|file>',
      'the registry.json for --agent (default: $ACP_KIT_REGISTRY, the official one, the snapshot)',
    )
    .option('--record [file]', 'append every frame to a capture file (default file: <data dir>/captures/<time>.ndjson)')
    .option('--validate', 'check every frame (schema + protocol rules) and log violations; traffic is never altered')
    .option('--log <file>', "write the proxy's own log lines to this file instead of stderr")
    .option(
      '--bridge <version>',
      'translate between ACP versions: 1 or 2 = the version the editor speaks (the agent is offered the other); auto = translate only if the agent answers the other version',
    )
    .option(
      '--inspect',
      'serve the web inspector for this session on 127.0.0.1 (records to the default capture file unless --record names one); the URL goes to the log',
    )
    .addHelpText(
      'after',
      "\nExample (editor config): acp-kit proxy --record --validate -- npx @zed-industries/claude-code-acp\nThe proxy exits with the agent's exit code.\n",
    )
    .action(async (agent, flags) => {
      result.code = await (await import('./proxy.js')).proxyCommand(agent, flags);
    });
}

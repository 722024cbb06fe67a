/** `acp-kit conduct`: its flags and help; the action (`conduct.ts`) loads only when the command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { collect, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('conduct')
    .description(
      'run a proxy chain (Proxy Chains RFD) on stdio: components in front of an agent, each separated by --; the editor sees one agent',
    )
    .argument('[chain...]', '-- <component...> [-- <component...>] -- <agent...> (with --agent <id>: components only)')
    .option('--trace <file>', "write a trace of every hop in the Rust conductor's .jsons format")
    .option(
      '--component <module>',
      'an in-process component: an ES module (a path, or an installed package name) whose default export is defineComponent(...); repeatable, client side first, before the -- components (or as a segment anywhere: -- --component <module> --)',
      collect,
    )
    .option(
      '--agent <id>',
      'an ACP Registry agent id[@version] as the agent: then every command after -- is a component',
    )
    .option(
      '--registry <url|file>',
      'registry.json for --agent (default: $ACP_KIT_REGISTRY, the official one, the snapshot)',
    )
    .addHelpText(
      'after',
      '\nExample: acp-kit conduct --trace chain.jsons -- acp-kit record --out c.ndjson -- acp-kit validate -- acp-kit agent\n' +
        '         acp-kit conduct --component examples/system-note-component.mjs -- acp-kit agent\n' +
        'The last command is the agent; every other one is a proxy component (docs/conductor.md).\n',
    )
    .action(async (chain, flags) => {
      result.code = await (await import('./conduct.js')).conductCommand(chain, flags);
    });
}

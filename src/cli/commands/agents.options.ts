/** `acp-kit agents list|show|install|update`: the ACP Registry; the actions (`agents.ts`) load only when a command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

const REGISTRY_HELP =
  'registry.json URL or file (default: $ACP_KIT_REGISTRY, else the official registry, cached, else the snapshot shipped with acp-kit)';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const agents = program
    .command('agents')
    .description('agents of the ACP Registry: list them, show one, install one; run one with --agent <id>');
  agents
    .command('list')
    .description('list the registry agents (id, version, distributions, name)')
    .option('--registry <url|file>', REGISTRY_HELP)
    .option('--json', 'one {"type":"agent"} line per manifest, then the result line')
    .action(async (flags) => {
      result.code = await (await import('./agents.js')).agentsListCommand(flags);
    });
  agents
    .command('show')
    .description('one agent: its manifest, the distribution for this platform and whether it is installed')
    .argument('<id>', 'agent id, optionally <id>@<version>')
    .option('--registry <url|file>', REGISTRY_HELP)
    .action(async (id, flags) => {
      result.code = await (await import('./agents.js')).agentsShowCommand(id, flags);
    });
  agents
    .command('install')
    .description('install an agent into the cache under the data dir (npm, uvx or the platform binary)')
    .argument('<id>', 'agent id, optionally <id>@<version>')
    .option('--registry <url|file>', REGISTRY_HELP)
    .action(async (id, flags) => {
      result.code = await (await import('./agents.js')).agentsInstallCommand(id, flags);
    });
  agents
    .command('update')
    .description('refresh the registry, then install the current version of every agent already installed')
    .option('--registry <url|file>', REGISTRY_HELP)
    .action(async (flags) => {
      result.code = await (await import('./agents.js')).agentsUpdateCommand(flags);
    });
}

/** `acp-kit profiles list|show`: the config file's profiles; the actions (`profiles.ts`) load only when a command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

const HELP = `
The config file is $XDG_CONFIG_HOME/acp-kit/config.json (else ~/.config/acp-kit/config.json):
  {
    "version": 1,
    "profiles": {
      "claude": {
        "description": "Claude Code through its ACP adapter",
        "agent": { "command": "npx", "args": ["@zed-industries/claude-code-acp"], "env": { "DEBUG": "0" } },
        "protocol": "1",
        "mode": "plan",
        "model": "sonnet",
        "config": { "thought_level": "high" },
        "permissions": "approve-reads",
        "cwd": "~/src/app"
      }
    }
  }
Use one with \`acp-kit run --profile claude "..."\` (or ACP_KIT_PROFILE=claude); flags given on the
command line win over the profile's values (--protocol auto counts as not given).
`;

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const load = () => import('./profiles.js');
  const profiles = program
    .command('profiles')
    .description('list and show the named agent profiles of the config file (for run/chat --profile)')
    .addHelpText('after', HELP);
  profiles
    .command('list')
    .description('list the profiles: name, agent, description')
    .option('--json', 'print NDJSON')
    .action(async (flags) => {
      result.code = await (await load()).profilesListCommand(flags);
    });
  profiles
    .command('show')
    .description('print one profile as stored in the config file')
    .argument('<name>', 'the profile name')
    .option('--json', 'print NDJSON')
    .action(async (name, flags) => {
      result.code = await (await load()).profilesShowCommand(name, flags);
    });
}

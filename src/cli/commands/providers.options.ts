/** `acp-kit providers list|set|disable`: their flags; the actions (`providers.ts`) load only when a command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addAgentOptions, type ExitResult } from '../options.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const providers = program
    .command('providers')
    .description("the agent's LLM providers and their endpoints (unstable providers/*)");
  const load = () => import('./providers.js');
  addAgentOptions(providers.command('list').description('list the providers with their current protocol and base URL'))
    .option('--json', 'print NDJSON')
    .action(async (flags) => {
      result.code = await (await load()).providersListCommand(flags);
    });
  addAgentOptions(
    providers
      .command('set')
      .description(
        "route a provider to an endpoint (replaces its whole configuration; lasts as long as the agent process, e.g. one served with 'acp-kit serve')",
      )
      .argument('<providerId>', 'the provider, as `providers list` shows it'),
  )
    .option('--endpoint <url>', 'the base URL requests go to (required), e.g. http://127.0.0.1:11434/v1')
    .option(
      '--api-type <protocol>',
      'protocol: openai, anthropic, azure, vertex, bedrock or custom (default: the provider id)',
    )
    .option('--header <name: value>', 'a header sent with every request (repeatable)', collect)
    .option(
      '--api-key-env <variable>',
      'send the key in this environment variable (openai: Authorization: Bearer, anthropic: x-api-key)',
    )
    .option('--json', 'print NDJSON')
    .action(async (providerId, flags) => {
      result.code = await (await load()).providersSetCommand(providerId, flags);
    });
  addAgentOptions(
    providers
      .command('disable')
      .description('disable a provider (not allowed for a required one)')
      .argument('<providerId>', 'the provider'),
  )
    .option('--json', 'print NDJSON')
    .action(async (providerId, flags) => {
      result.code = await (await load()).providersDisableCommand(providerId, flags);
    });
}

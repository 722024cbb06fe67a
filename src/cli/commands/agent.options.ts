/** `acp-kit agent`: its flags and help; the action (`agent-launch.ts`, the built-in agent) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandHandlers } from '../flags.js';
import { integerFlag, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult, agent: CommandHandlers['agent']): void {
  program
    .command('agent')
    .description('run the built-in ACP coding agent on stdio (what `run` and `chat` start by default)')
    .addOption(
      new Option(
        '--model <backend>',
        'model backend (default: $ACP_KIT_MODEL, else openai when OPENAI_API_KEY is set, else anthropic when ANTHROPIC_API_KEY is set, else demo — offline, rule-based)',
      ).choices(['demo', 'openai', 'anthropic']),
    )
    .option('--model-name <name>', 'model name (default gpt-4o-mini / claude-sonnet-4-5)')
    .option('--base-url <url>', 'API base URL (e.g. a local OpenAI-compatible server)')
    .option(
      '--max-turn-requests <n>',
      'model requests per turn before stopping with max_turn_requests (default 25)',
      integerFlag('--max-turn-requests', { min: 1 }),
    )
    .option(
      '--max-output-tokens <n>',
      'output token cap per model request (stop reason max_tokens when hit)',
      integerFlag('--max-output-tokens', { min: 1 }),
    )
    .option(
      '--context-window <n>',
      'context window size reported in usage updates',
      integerFlag('--context-window', { min: 1 }),
    )
    .addOption(new Option('--mode <mode>', 'initial permission mode').choices(['ask', 'auto', 'read-only']))
    .addHelpText(
      'after',
      '\nThe agent speaks ACP (v1 and v2) on stdin/stdout, logs to stderr and ends when stdin closes.\n' +
        'Cost: without --model, an OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment switches the agent from the\n' +
        'free demo model to that paid provider (every prompt is billed to the key); pass --model demo to stay offline.\n' +
        'Environment: OPENAI_API_KEY / ANTHROPIC_API_KEY, OPENAI_BASE_URL / ANTHROPIC_BASE_URL, ACP_KIT_MODEL,\n' +
        'ACP_KIT_MODEL_NAME, ACP_KIT_DATA_DIR (where sessions are stored).\n',
    )
    .action(async (flags) => {
      result.code = await agent(flags);
    });
}

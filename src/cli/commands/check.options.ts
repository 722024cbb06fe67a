/** `acp-kit check agent|client`: their flags and help; the actions (`check.ts`, the checker) load only when a command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { integerFlag, type ExitResult } from '../options.js';

const positive = (flag: string): ((value: string) => number) => integerFlag(flag, { min: 1 });

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const check = program
    .command('check')
    .description('check that an agent speaks ACP: drive it over stdio and judge it against docs/conformance.md');
  check
    .command('agent')
    .description(
      'run the conformance cases against an agent (shared processes where a case allows it); exit 0 conformant, 1 not, 2 usage',
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
    .addOption(
      new Option('--protocol <version>', 'protocol version(s) to check').choices(['1', '2', 'both']).default('both'),
    )
    .option('--only <ids...>', 'only these requirement IDs (comma or space separated; a trailing * matches a prefix)')
    .option('--skip <ids...>', 'skip these requirement IDs')
    .option('--timeout <ms>', 'how long one answer may take (a whole turn: 4x; default 10000)', positive('--timeout'))
    .option('--concurrency <n>', 'cases run at once (default 4)', positive('--concurrency'))
    .option(
      '--process-per-case',
      'a fresh agent process for every case (default: cases that allow it share one per lane, replaced after a failure)',
    )
    .option('--cwd <dir>', 'working directory for the agent and its sessions (default: a fresh temporary directory)')
    .option('--env <NAME=VALUE...>', 'extra environment for the agent')
    // three prompts, one per kind of case (docs/checker.md)
    .option(
      '--prompt <text>',
      'prompt of the general turn cases; the cancel case\'s too unless --cancel-prompt (default "run sleep 3")',
    )
    .option(
      '--cancel-prompt <text>',
      'prompt of the cancel cases: must keep the agent busy until the cancel arrives (default: --prompt)',
    )
    .option(
      '--short-prompt <text>',
      'prompt of the cases that only need a turn that ends (load, resume, image; default "hello")',
    )
    .option('--auth <methodId>', 'auth method to log in with after initialize')
    .option(
      '--elicitation',
      'advertise form elicitation and decline every question, judging what the agent asks (default: advertise none)',
    )
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'also write a JUnit XML report')
    .addHelpText(
      'after',
      '\nExample: acp-kit check agent --protocol 2 -- npx acp-kit agent\nSee docs/checker.md for the cases and a GitHub Actions snippet.\n',
    )
    .action(async (agent, flags) => {
      result.code = await (await import('./check.js')).checkAgentCommand(agent, flags);
    });
  registerMatrix(check, result);
  check
    .command('proxy')
    .description(
      'check a proxy component (acp-kit conduct) against the Proxy Chains RFD: plays its conductor and a scripted agent; exit 0 no MUST failed, 1 otherwise',
    )
    .argument('<component...>', 'the component command, after --')
    .option('--timeout <ms>', 'how long one answer may take (default 10000)', positive('--timeout'))
    .option('--json', 'print the report as JSON')
    .action(async (component, flags) => {
      result.code = await (await import('./check-proxy.js')).checkProxyCommand(component, flags);
    });
  check
    .command('client')
    .description(
      'run the conformance cases against a client: it launches a scripted agent ({agent}) once per case; exit 0 conformant, 1 not, 2 usage',
    )
    .argument(
      '<client...>',
      'the client command, after --; {agent} in it becomes the agent command line (also in $ACP_CHECK_AGENT)',
    )
    .addOption(
      new Option('--protocol <version>', 'protocol version(s) the scripted agent speaks')
        .choices(['1', '2', 'both'])
        .default('both'),
    )
    .option('--only <ids...>', 'only these requirement IDs (comma or space separated; a trailing * matches a prefix)')
    .option('--skip <ids...>', 'skip these requirement IDs')
    .option('--timeout <ms>', 'how long one step of the client may take (default 10000)', positive('--timeout'))
    .option('--concurrency <n>', 'cases run at once (default 4)', positive('--concurrency'))
    .option('--cwd <dir>', 'working directory for the client (default: a fresh temporary directory per case)')
    .option('--env <NAME=VALUE...>', 'extra environment for the client')
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'also write a JUnit XML report')
    .addHelpText(
      'after',
      '\nExample: acp-kit check client -- acp-kit run --agent "{agent}" hello\nThe checker presses Ctrl-C (SIGINT to the client\'s process group) to make it cancel. See docs/checker.md.\n',
    )
    .action(async (client, flags) => {
      result.code = await (await import('./check.js')).checkClientCommand(client, flags);
    });
}

/** `acp-kit check matrix`: registry agents installed and tabulated (its own function: register stays short). */
function registerMatrix(check: CommandUnknownOpts, result: ExitResult): void {
  check
    .command('matrix')
    .description(
      "install ACP Registry agents and tabulate them: the registry's own daily matrix columns plus check agent on v1/v2 (verdict, failing IDs, time)",
    )
    .argument('[ids...]', 'registry agent ids, <id> or <id>@<version> (default: every agent of the registry)')
    .option(
      '--out <file...>',
      'write the matrix to these files, by extension: .md, .json, .html (default: Markdown on stdout)',
    )
    .option('--registry <url|file>', 'the registry.json (default: $ACP_KIT_REGISTRY, the official one, the snapshot)')
    .option('--timeout <ms>', 'how long one answer may take (default 20000)', positive('--timeout'))
    .option('--concurrency <n>', 'checker cases run at once per agent (default 2)', positive('--concurrency'))
    .option('--prompt <text>', 'prompt of the general turn cases (as check agent)')
    .option('--cancel-prompt <text>', 'prompt of the cancel cases (as check agent)')
    .option('--short-prompt <text>', 'prompt of the short turn cases (as check agent)')
    .option('--only <ids...>', 'check only these requirement IDs (as check agent; the matrix heading says so)')
    .option('--skip <ids...>', 'skip these requirement IDs (as check agent; the matrix heading says so)')
    .addHelpText(
      'after',
      '\nExample: acp-kit check matrix claude-acp gemini --out matrix.md --out matrix.html\nSee docs/registry.md.\n',
    )
    .action(async (ids, flags) => {
      result.code = await (await import('./check-matrix.js')).checkMatrixCommand(ids, flags);
    });
}

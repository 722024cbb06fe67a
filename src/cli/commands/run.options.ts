/** `acp-kit run`: its flags and help; the action (`run.ts`, heavy) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { usageError } from '../errors.js';
import type { CommandHandlers } from '../flags.js';
import { addAgentOptions, addModelOptions, AGENT_HELP, collect, EXIT_HELP, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult, run: CommandHandlers['run']): void {
  addModelOptions(
    addAgentOptions(
      program
        .command('run')
        .description('send one prompt to an agent and stream the answer (non-interactive; works without a TTY)')
        .argument('<prompt...>', 'the prompt (several words are joined with spaces; "-" reads it from stdin)'),
    ),
  )
    .addOption(new Option('--approve-all', 'approve every permission request').conflicts(['approveReads', 'denyAll']))
    .addOption(
      new Option('--approve-reads', 'approve read-only tool calls, reject the rest (default)').conflicts([
        'approveAll',
        'denyAll',
      ]),
    )
    .addOption(new Option('--deny-all', 'reject every permission request').conflicts(['approveAll', 'approveReads']))
    .option(
      '--answer <key=value>',
      "answer a field of the agent's questions (elicitation forms; repeatable); without answers they are declined",
      collect,
    )
    .option('--answers <file.json>', 'answers to form fields from a JSON object (--answer wins per field)')
    .option('--accept-urls', "consent to the agent's url requests (the URL is printed, never opened); default: decline")
    .option(
      '--session <sessionId>',
      'continue a stored session: load (v1) or resume (v2) it with its history replayed, then prompt',
    )
    .option(
      '--tool-timeout <ms>',
      'cancel a tool call that has run (in_progress) longer than this many milliseconds, alone (v2 tool_call/cancel, only while the call advertises capabilities.cancel); the turn goes on',
      millisecondsFlag('--tool-timeout'),
    )
    .option('--json', 'print NDJSON events (first: connection, last: result) instead of text')
    .option(
      '--mcp-over-acp <command>',
      'start this stdio MCP server here and offer it to the agent over the ACP connection (MCP over ACP; "name=command" names it; repeatable)',
      collect,
    )
    .addHelpText(
      'after',
      `\nExamples:\n  acp-kit run "create notes.txt containing hello" --approve-all\n  acp-kit run --json "list files" | jq -c .type\n  acp-kit run --agent "node my-agent.js" --protocol 1 "hello"\n  acp-kit run --agent "node my-agent.js" --mode code --model smart --config effort=high "fix it"\n  acp-kit run "ask Which database? choices postgres, sqlite" --answer answer=sqlite\n${AGENT_HELP}${EXIT_HELP}`,
    )
    .action(async (words, flags) => {
      result.code = await run(await promptText(words), flags);
    });
}

/** A positive whole number of milliseconds (up to the longest timer Node keeps: 2^31-1). */
function millisecondsFlag(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0 || n > 2 ** 31 - 1)
      throw usageError(`${flag} must be a positive whole number of milliseconds (got ${JSON.stringify(value)})`);
    return n;
  };
}

/** The prompt: the words joined, or stdin for a lone `-`. */
async function promptText(words: string[]): Promise<string> {
  if (words.length === 1 && words[0] === '-') {
    if (process.stdin.isTTY) throw usageError('"-" reads the prompt from stdin, but stdin is a terminal');
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    const text = Buffer.concat(chunks).toString('utf8').trim();
    if (!text) throw usageError('the prompt read from stdin is empty');
    return text;
  }
  const text = words.join(' ').trim();
  if (!text) throw usageError('the prompt is empty');
  return text;
}

/** `acp-kit chat`: its flags and help; the action (`chat.ts`, with the terminal UI) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandHandlers } from '../flags.js';
import { addAgentOptions, addModelOptions, AGENT_HELP, collect, EXIT_HELP, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult, chat: CommandHandlers['chat']): void {
  addModelOptions(
    addAgentOptions(
      program
        .command('chat')
        .description(
          'interactive terminal client (needs a TTY): streaming answers, plans, tool calls, permission picker',
        ),
    ),
  )
    .option('--resume [sessionId]', 'resume an earlier session (without an id: pick one from a list)')
    .option(
      '--mcp-over-acp <command>',
      'start this stdio MCP server here and offer it to the agent over the ACP connection (MCP over ACP; "name=command" names it; repeatable)',
      collect,
    )
    .addOption(
      new Option('--approve-all', 'approve every permission request without asking').conflicts(['approveReads']),
    )
    .addOption(
      new Option('--approve-reads', 'approve read-only tool calls without asking; ask for the rest').conflicts([
        'approveAll',
      ]),
    )
    .addHelpText(
      'after',
      `\nKeys: Enter sends (during a turn: queues; Esc takes the latest queued back), Ctrl-C cancels the\nrunning turn (a second Ctrl-C exits), Ctrl-D exits,\n/ lists the agent's slash commands, /exit or /quit exits, up/down + Enter pick a permission option.\n/mode, /model, /config list the session's settings (current one marked); /mode <id>, /model <id>,\n/config <id>=<value> set one.\n${AGENT_HELP}${EXIT_HELP}`,
    )
    .action(async (flags) => {
      result.code = await chat(flags);
    });
}

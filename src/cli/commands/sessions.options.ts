/** `acp-kit sessions list|show`: their flags; the actions (`sessions.ts`) load only when a command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandHandlers } from '../flags.js';
import { addAgentOptions, EXIT_HELP, type ExitResult } from '../options.js';

type SessionHandlers = Pick<CommandHandlers, 'sessionsList' | 'sessionsShow'>;

export function register(program: CommandUnknownOpts, result: ExitResult, handlers: SessionHandlers): void {
  const sessions = program
    .command('sessions')
    .description("list, show, fork, rename, archive, export and import an agent's stored sessions");
  addAgentOptions(sessions.command('list').description('list sessions (of --cwd, or all with --all)'))
    .option('--all', 'list sessions of every working directory')
    .option('--archived', 'also list archived sessions (agents with the unstable archive capability)')
    .option('--json', 'print NDJSON')
    .action(async (flags) => {
      result.code = await handlers.sessionsList(flags);
    });
  addAgentOptions(
    sessions.command('show').description("replay a session's history").argument('<sessionId>', 'the session id'),
  )
    .option('--json', 'print NDJSON')
    .action(async (id, flags) => {
      result.code = await handlers.sessionsShow(id, flags);
    });
  sessions.addHelpText('after', EXIT_HELP);
}

/**
 * `acp-kit sessions fork|rename|archive|unarchive`: their flags, added to the `sessions` command
 * (registered before this); the actions (`sessions-admin.ts`) load only when a command runs.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addAgentOptions, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const sessions = program.commands.find((c) => c.name() === 'sessions');
  if (!sessions) throw new Error('register the sessions command before its fork/rename/archive subcommands');
  const load = () => import('./sessions-admin.js');
  addAgentOptions(
    sessions
      .command('fork')
      .description('fork a session: a new session with a copy of its history (unstable session/fork)')
      .argument('<sessionId>', 'the session to fork'),
  )
    .option('--json', 'print NDJSON')
    .action(async (id, flags) => {
      result.code = await (await load()).sessionsForkCommand(id, flags);
    });
  addAgentOptions(
    sessions
      .command('rename')
      .description("set a session's title (unstable session/set_title)")
      .argument('<sessionId>', 'the session id')
      .argument('<title>', 'the new title'),
  )
    .option('--json', 'print NDJSON')
    .action(async (id, title, flags) => {
      result.code = await (await load()).sessionsRenameCommand(id, title, flags);
    });
  for (const archived of [true, false]) {
    addAgentOptions(
      sessions
        .command(archived ? 'archive' : 'unarchive')
        .description(
          archived
            ? 'archive a session: hidden from `sessions list` (unstable session/archive)'
            : 'bring an archived session back into `sessions list` (unstable session/unarchive)',
        )
        .argument('<sessionId>', 'the session id'),
    )
      .option('--json', 'print NDJSON')
      .action(async (id, flags) => {
        result.code = await (await load()).sessionsArchiveCommand(id, archived, flags);
      });
  }
}

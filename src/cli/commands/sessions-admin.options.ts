/**
 * `acp-kit sessions fork|rename|archive|unarchive|delete|status|export|import`: their flags, added to the `sessions` command
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
  addAgentOptions(
    sessions
      .command('delete')
      .description("delete a session from the agent's store (session/delete; the agent must advertise it)")
      .argument('<sessionId>', 'the session id'),
  )
    .option('--json', 'print NDJSON')
    .action(async (id, flags) => {
      result.code = await (await load()).sessionsDeleteCommand(id, flags);
    });
  addAgentOptions(
    sessions
      .command('status')
      .description("ask a session's status: open or saved, and a v2 agent's turn state (unstable session/status)")
      .argument('<sessionId>', 'the session id'),
  )
    .option('--json', 'print NDJSON')
    .action(async (id, flags) => {
      result.code = await (await load()).sessionsStatusCommand(id, flags);
    });
  registerTransfer(sessions, result);
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

/** `sessions export|import`: the built-in agent's store, read and written directly (no agent runs). */
function registerTransfer(sessions: CommandUnknownOpts, result: ExitResult): void {
  const load = () => import('./sessions-transfer.js');
  sessions
    .command('export')
    .description('write a stored session of the built-in agent as one portable JSON file (format: acp-kit-session v1)')
    .argument('<sessionId>', 'the session id')
    .option('--out <file>', 'write to this file (default: stdout, which is then the export itself)')
    .action(async (id, flags) => {
      result.code = await (await load()).sessionsExportCommand(id, flags);
    });
  sessions
    .command('import')
    .description("store a session from a `sessions export` file in the built-in agent's store")
    .argument('<file>', 'the export file')
    .option('--force', 'replace a stored session with the same id')
    .option('--json', 'print NDJSON')
    .action(async (file, flags) => {
      result.code = await (await load()).sessionsImportCommand(file, flags);
    });
}

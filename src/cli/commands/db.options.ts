/** `acp-kit db migrate|prune`: their flags; the actions (`db.ts`, which loads pg) load only when a command runs. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { text, type ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  const db = program
    .command('db')
    .description('the PostgreSQL session store (acp-kit serve --store postgres://...): schema and retention');
  db.command('migrate')
    .description('create or update the schema (idempotent); prints the versions applied')
    .option('--url <postgres://...>', 'the database (default: $ACP_KIT_DATABASE_URL)', text)
    .action(async (flags) => {
      result.code = await (await import('./db.js')).dbMigrateCommand(flags);
    });
  db.command('prune')
    .description('delete the sessions (with their history) not updated for a while; prints how many')
    .requiredOption('--older-than <duration>', 'e.g. 30d, 12h, 90m')
    .option('--url <postgres://...>', 'the database (default: $ACP_KIT_DATABASE_URL)', text)
    .option('--namespace <name>', 'only this namespace (a token owner of acp-kit serve)')
    .action(async (flags) => {
      result.code = await (await import('./db.js')).dbPruneCommand(flags);
    });
}

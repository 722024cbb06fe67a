import { CliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

/** Flags of `acp-kit db migrate` and `acp-kit db prune`. */
export interface DbFlags {
  url?: string;
  /** prune: a duration like `30d`, `12h`, `90m`. */
  olderThan?: string;
  /** prune: only this namespace (a token owner of `acp-kit serve`). */
  namespace?: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30d` -> milliseconds; a usage error naming the flag otherwise. */
export function parseDuration(text: string, flag = '--older-than'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  const unit = m?.[2] === undefined ? undefined : UNITS[m[2]];
  if (!m || unit === undefined)
    throw usageError(`${flag} must be a duration like 30d, 12h, 90m, 45s or 500ms (got ${JSON.stringify(text)})`);
  return Number(m[1]) * unit;
}

/** A pool on the database of `--url` or `$ACP_KIT_DATABASE_URL`, checked to be a postgres:// URL. */
async function connect(flags: DbFlags): Promise<{ pool: import('@acp-kit/server/postgres').PgPool; where: string }> {
  const url = flags.url ?? process.env.ACP_KIT_DATABASE_URL;
  if (!url)
    throw usageError('no database given', 'Pass --url postgres://user@host:port/db or set $ACP_KIT_DATABASE_URL.');
  const { createPostgresPool, postgresHostPort } = await import('@acp-kit/server/postgres');
  const where = postgresHostPort(url);
  if (!where) throw usageError(`--url must be a postgres:// or postgresql:// URL (got ${JSON.stringify(redact(url))})`);
  return { pool: await createPostgresPool({ url, maxConnections: 2 }), where };
}

/** A database failure as a CLI error: what failed, where, and what to check. */
async function dbError(e: unknown, where: string): Promise<CliError> {
  const { isConnectionError } = await import('@acp-kit/server/postgres');
  const reason = e instanceof Error ? e.message || e.name : String(e);
  return isConnectionError(e)
    ? new CliError(
        'database-unreachable',
        ExitCode.Internal,
        `the database (PostgreSQL at ${where}) is unreachable: ${reason}`,
        { hint: 'Check that the server runs and the URL (host, port, database, user) is right.' },
      )
    : new CliError('database-error', ExitCode.Internal, `the database (PostgreSQL at ${where}) refused: ${reason}`);
}

/** `acp-kit db migrate`: brings the schema up to date (idempotent) and prints the versions applied. */
export async function dbMigrateCommand(flags: DbFlags): Promise<number> {
  const { pool, where } = await connect(flags);
  try {
    const { migrate } = await import('@acp-kit/server/postgres');
    const r = await migrate(pool).catch(async (e: unknown) => Promise.reject(await dbError(e, where)));
    process.stdout.write(
      r.applied.length > 0
        ? `applied migrations ${r.applied.join(', ')}; schema version ${r.version}\n`
        : `schema is up to date (version ${r.version}); nothing applied\n`,
    );
    return ExitCode.Ok;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** `acp-kit db prune --older-than 30d`: deletes sessions not updated since, prints how many. */
export async function dbPruneCommand(flags: DbFlags): Promise<number> {
  if (flags.olderThan === undefined)
    throw usageError('--older-than is required', 'e.g. acp-kit db prune --older-than 30d');
  const ms = parseDuration(flags.olderThan);
  const { pool, where } = await connect(flags);
  try {
    const { prune } = await import('@acp-kit/server/postgres');
    const n = await prune(pool, ms, flags.namespace).catch(async (e: unknown) =>
      Promise.reject(await dbError(e, where)),
    );
    process.stdout.write(
      `deleted ${n} session${n === 1 ? '' : 's'} not updated for ${flags.olderThan}${flags.namespace !== undefined ? ` (namespace ${flags.namespace})` : ''}\n`,
    );
    return ExitCode.Ok;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** A URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/**
 * `acp-kit sessions export <id>` and `sessions import <file>`: a stored session of the built-in
 * agent's store (the JSONL files under `$ACP_KIT_DATA_DIR/sessions`, else the XDG data dir) as one
 * portable JSON file, and back. The file holds the session's metadata and its history of neutral
 * updates (the same for a v1 and a v2 client: replays re-encode them for the version asking), so an
 * imported session loads like one the agent stored itself. Format: src/cli/README.md,
 * "Session export format".
 */
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { AcpError } from '@acp-kit/protocol';
import { packageVersion } from '@acp-kit/protocol/internal';
import { JsonlSessionStore, SESSION_LOCKED, type StoredSession, type StoredSessionMeta } from '@acp-kit/agent';
import { messageOf } from '@acp-kit/agent/internal';
import { CliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { checkJson, type JsonSchema } from '../json-check.js';
import { resultLine } from '../render/ndjson-events.js';

/** The `format` field of an export file; `version` says which layout of it. */
export const EXPORT_FORMAT = 'acp-kit-session';
export const EXPORT_VERSION = 1;

/** A session export file (version 1). */
export interface SessionExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  /** ISO 8601 */
  exportedAt: string;
  /** the acp-kit version that wrote it */
  acpKit: string;
  session: StoredSessionMeta;
  /** the history: neutral session updates, in order */
  updates: StoredSession['updates'];
}

const ID = '^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$';

/** What `sessions import` accepts: errors name the field (json-check.ts). */
const EXPORT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['format', 'version', 'session', 'updates'],
  properties: {
    format: { const: EXPORT_FORMAT },
    version: { const: EXPORT_VERSION },
    exportedAt: { type: 'string' },
    acpKit: { type: 'string' },
    session: {
      type: 'object',
      required: ['sessionId', 'cwd', 'additionalDirectories', 'createdAt'],
      properties: {
        sessionId: { type: 'string', pattern: ID },
        cwd: { type: 'string', pattern: '^/' },
        additionalDirectories: { type: 'array', items: { type: 'string' } },
        createdAt: { type: 'string', minLength: 1 },
        updatedAt: { type: ['string', 'null'] },
        title: { type: ['string', 'null'] },
        configValues: { type: 'object', additionalProperties: { type: ['string', 'boolean'] } },
        archived: { type: 'boolean' },
        _meta: { type: ['object', 'null'] },
      },
    },
    updates: {
      type: 'array',
      items: { type: 'object', required: ['sessionUpdate'], properties: { sessionUpdate: { type: 'string' } } },
    },
  },
};

/** The built-in agent's store, where it would be for the agent `run`/`chat` start (same environment). */
function builtInStore(): JsonlSessionStore {
  return new JsonlSessionStore({ onProblem: () => undefined });
}

function unknownSession(sessionId: string, dir: string): CliError {
  return new CliError('session_not_found', ExitCode.SessionNotFound, `no stored session ${sessionId}`, {
    hint: `The built-in agent's sessions are in ${dir} ($ACP_KIT_DATA_DIR/sessions, else $XDG_DATA_HOME/acp-kit/sessions). \`acp-kit sessions list --all\` lists them.`,
  });
}

/** `acp-kit sessions export <id> [--out file]`: the file (or stdout); with --json a result line naming it. */
export async function sessionsExportCommand(
  sessionId: string,
  flags: { out?: string; json?: boolean },
): Promise<number> {
  const store = builtInStore();
  try {
    let stored: StoredSession | undefined;
    try {
      stored = await store.load(sessionId);
    } catch (e) {
      throw new CliError('store', ExitCode.Internal, `cannot read session ${sessionId}: ${messageOf(e)}`);
    }
    if (!stored) throw unknownSession(sessionId, store.dir);
    const file: SessionExport = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt: new Date().toISOString(),
      acpKit: packageVersion(),
      session: stored.meta,
      updates: stored.updates,
    };
    const text = `${JSON.stringify(file, null, 2)}\n`;
    if (flags.out === undefined) {
      process.stdout.write(text);
      return ExitCode.Ok;
    }
    try {
      writeFileSync(flags.out, text, { mode: 0o600 });
    } catch (e) {
      throw usageError(`cannot write --out ${flags.out}: ${messageOf(e)}`);
    }
    process.stdout.write(`${sessionId}  exported to ${flags.out} (${stored.updates.length} updates)\n`);
    return ExitCode.Ok;
  } finally {
    store.close();
  }
}

/** Reads and checks an export file; a usage error names the file and the bad field. */
export async function readExportFile(path: string): Promise<SessionExport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw usageError(`cannot read ${path}: ${messageOf(e)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw usageError(`${path} is not JSON: ${messageOf(e)}`, 'Give a file written by `acp-kit sessions export`.');
  }
  const checked = await checkJson<SessionExport>(EXPORT_SCHEMA, value);
  if ('problems' in checked)
    throw usageError(
      `${path} is not a session export (format ${EXPORT_FORMAT}, version ${EXPORT_VERSION}): ${checked.problems.join('; ')}`,
      'Give a file written by `acp-kit sessions export`.',
    );
  return checked.value;
}

/** Stores the exported session, replacing an existing one only with `force`; the session stays locked meanwhile. */
async function storeImport(store: JsonlSessionStore, file: SessionExport, force: boolean): Promise<boolean> {
  const meta: StoredSessionMeta = file.session;
  const id = meta.sessionId;
  store.acquire(id);
  try {
    const existing = await store.load(id).catch(() => ({ meta }));
    if (existing && !force)
      throw new CliError('usage', ExitCode.Usage, `session ${id} exists already in ${store.dir}`, {
        hint: 'Pass --force to replace it (its history is lost).',
      });
    if (existing) await store.delete(id);
    store.create(meta);
    for (const u of file.updates) store.append(id, u);
    if (meta.configValues) store.setConfigValues(id, meta.configValues);
    if (meta.archived) await store.setArchived(id, true);
    return existing !== undefined;
  } finally {
    store.release(id);
  }
}

/** `acp-kit sessions import <file> [--force]`. */
export async function sessionsImportCommand(path: string, flags: { force?: boolean; json?: boolean }): Promise<number> {
  const file = await readExportFile(path);
  const store = builtInStore();
  try {
    let replaced: boolean;
    try {
      replaced = await storeImport(store, file, flags.force === true);
    } catch (e) {
      if (e instanceof CliError) throw e;
      if (e instanceof AcpError && e.code === SESSION_LOCKED)
        throw new CliError('session_locked', ExitCode.Usage, e.message, {
          hint: 'Close the chat or agent that has it open, then import again.',
        });
      throw new CliError('store', ExitCode.Internal, `cannot store session ${file.session.sessionId}: ${messageOf(e)}`);
    }
    const id = file.session.sessionId;
    const fields = { sessionId: id, updates: file.updates.length, replaced };
    process.stdout.write(
      flags.json
        ? resultLine(ExitCode.Ok, fields)
        : `${id}  imported (${file.updates.length} updates${replaced ? ', replaced the stored one' : ''}); resume with: acp-kit chat --resume ${id}\n`,
    );
    return ExitCode.Ok;
  } finally {
    store.close();
  }
}

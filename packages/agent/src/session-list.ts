import { normalize, sep } from 'node:path';
import { AcpError, type ListSessionsResponse, type SessionInfo } from '@acp-kit/protocol';
import type { StoredSessionMeta } from './session-store.js';

/** Sessions per `session/list` page (ACP-ALL-LIST-05). */
export const LIST_PAGE_SIZE = 50;

function normDir(p: string): string {
  const n = normalize(p);
  return n.length > 1 && n.endsWith(sep) ? n.slice(0, -1) : n;
}

type Key = [updatedAt: string, sessionId: string];

/** Newest first; ties broken by id so the order is total and cursors are stable. */
function compare(a: Key, b: Key): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? 1 : -1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

function keyOf(m: StoredSessionMeta): Key {
  return [m.updatedAt ?? m.createdAt ?? '', m.sessionId];
}

/** Opaque keyset cursor: the sort key of the last session of the previous page. */
function encodeCursor(k: Key): string {
  return Buffer.from(JSON.stringify(['acp-kit/list/1', ...k])).toString('base64url');
}

function decodeCursor(cursor: string): Key {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 3 &&
      v[0] === 'acp-kit/list/1' &&
      typeof v[1] === 'string' &&
      typeof v[2] === 'string'
    )
      return [v[1], v[2]];
  } catch {
    /* below */
  }
  throw AcpError.invalidParams(
    `params.cursor: ${JSON.stringify(cursor.length > 60 ? cursor.slice(0, 60) + '…' : cursor)} is not a cursor this agent returned`,
    { path: 'params.cursor' },
  );
}

/**
 * One page of `session/list` (ACP-ALL-LIST-01..05): exact `cwd` match (normalized), newest first,
 * `nextCursor` only when more pages exist; an unknown cursor is -32602. Discovery only.
 */
export function listPage(
  all: StoredSessionMeta[],
  cwd: string | null | undefined,
  cursor: string | null | undefined,
  pageSize = LIST_PAGE_SIZE,
  /** unstable `session.archive`: each entry says whether it is archived */
  reportArchived = false,
): ListSessionsResponse {
  const after = cursor != null ? decodeCursor(cursor) : undefined;
  const want = cwd != null ? normDir(cwd) : undefined;
  const rows = all
    .filter((m) => want === undefined || normDir(m.cwd) === want)
    .sort((a, b) => compare(keyOf(a), keyOf(b)));
  const start = after ? rows.findIndex((m) => compare(keyOf(m), after) > 0) : 0;
  const page = start < 0 ? [] : rows.slice(start, start + pageSize);
  const sessions: SessionInfo[] = page.map((m) => {
    const info: SessionInfo = { sessionId: m.sessionId, cwd: m.cwd };
    if (m.title != null) info.title = m.title;
    if (m.updatedAt != null) info.updatedAt = m.updatedAt;
    if (m.additionalDirectories.length > 0) info.additionalDirectories = [...m.additionalDirectories];
    if (reportArchived) info.archived = m.archived === true;
    return info;
  });
  const res: ListSessionsResponse = { sessions };
  const last = page.at(-1);
  if (last !== undefined && start >= 0 && start + pageSize < rows.length) res.nextCursor = encodeCursor(keyOf(last));
  return res;
}

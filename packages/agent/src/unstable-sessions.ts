import { AcpError, type AgentCapabilities, type SessionArchiveFilter } from '@acp-kit/protocol';
import type { SessionStore, StoredSessionMeta } from './session-store.js';
import type { AgentSession } from './types.js';

/**
 * The unstable session methods (`schema.unstable.json` of both versions) the runtime serves from
 * its store. Each is advertised (`session.fork`, `session.archive`, `session.status`,
 * `session.title`) and served only when enabled here; otherwise the client gets -32601.
 */
export interface UnstableSessionMethods {
  /**
   * `session/fork`: the runtime copies the stored history and config values under a new session id
   * ({@link SessionStore.fork}, else load + create + append) and opens the copy: `openSession` sees
   * it with `restored: true`, its history and `forkedFrom`. Needs a store (not `store: null`).
   */
  fork?: boolean;
  /**
   * `session/archive` / `session/unarchive`: archived sessions leave `session/list` unless it asks
   * (`archived: "include" | "only"`), every listed entry says `archived`. Archiving an open session
   * closes it for every client first. Needs a store with {@link SessionStore.setArchived}.
   */
  archive?: boolean;
  /** `session/status`: `open` (in memory here; v2 adds the foreground state) or `saved`. */
  status?: boolean;
  /**
   * `session/set_title`: the title is stored (a `session_info_update` in the history) and sent to
   * every client attached to the session. `true` normalizes with {@link normalizeTitle}; a function
   * replaces it (return the title to store; throw `AcpError.invalidParams` to refuse one). It gets
   * the session when it is open here, e.g. to stop generating titles of its own (the schema: after
   * a successful set_title the agent SHOULD NOT replace the title with a generated one).
   */
  title?: boolean | ((title: string, session: AgentSession | undefined) => string);
}

/** The unstable session markers this agent advertises. */
export function unstableCapabilities(
  methods: UnstableSessionMethods | undefined,
  durable: boolean,
  store: SessionStore,
): NonNullable<AgentCapabilities['session']> {
  const out: NonNullable<AgentCapabilities['session']> = {};
  if (!methods) return out;
  // a fork copies history, which only a store keeps
  if (methods.fork && durable) out.fork = true;
  if (methods.archive && durable && store.setArchived) out.archive = true;
  if (methods.status) out.status = true;
  if (methods.title) out.title = true;
  return out;
}

/** Longest title kept (longer ones are cut, as the schema allows: "MAY normalize ... truncating"). */
export const MAX_TITLE_LENGTH = 200;

/** The default title normalization: trimmed, cut to {@link MAX_TITLE_LENGTH}; empty is -32602. */
export function normalizeTitle(title: string): string {
  const t = title.trim().replace(/\s+/g, ' ');
  if (t.length === 0)
    throw AcpError.invalidParams('params.title: must not be empty (after trimming whitespace)', {
      path: 'params.title',
    });
  return [...t].slice(0, MAX_TITLE_LENGTH).join('');
}

/**
 * Which stored sessions a `session/list` archive filter keeps. An unknown value is -32602, never
 * read as `exclude` (the schema's rule for `SessionArchiveFilter`).
 */
export function archiveFilter(filter: SessionArchiveFilter | null | undefined): (meta: StoredSessionMeta) => boolean {
  switch (filter ?? 'exclude') {
    case 'exclude':
      return (m) => m.archived !== true;
    case 'include':
      return () => true;
    case 'only':
      return (m) => m.archived === true;
    default:
      throw AcpError.invalidParams(
        `params.archived: ${JSON.stringify(filter)} is not an archive filter this agent supports (exclude, include, only)`,
        { path: 'params.archived' },
      );
  }
}

import type { Meta } from '../protocol/model/json.js';
import type { AnySessionUpdate } from '../protocol/model/update.js';

/** Values of session config options, keyed by `configId`. */
export type ConfigValues = Record<string, string | boolean>;

/** What a store keeps about a session besides its history. */
export interface StoredSessionMeta {
  sessionId: string;
  /** absolute */
  cwd: string;
  additionalDirectories: string[];
  /** ISO 8601 */
  createdAt: string;
  /** ISO 8601; the last append when known */
  updatedAt?: string | null;
  title?: string | null;
  /** The last stored config option values (restored onto the options `openSession` returns). */
  configValues?: ConfigValues;
  _meta?: Meta | null;
}

/** A stored session: its metadata and its history of neutral updates, in order. */
export interface StoredSession {
  meta: StoredSessionMeta;
  updates: AnySessionUpdate[];
  /** Optional: where each update is stored (same order as `updates`, e.g. `file:line`), for problem reports. */
  locations?: string[];
}

/**
 * Durable session history for the agent runtime. The runtime appends every history update
 * (everything but `state_update` and `notice`) **before** it is sent, so `append` must have
 * handed the update to the operating system (or to memory, for the in-memory store) when it
 * returns: an agent killed at any moment can replay everything its client received.
 * Replays re-encode the stored neutral updates for the version of the connection asking.
 */
export interface SessionStore {
  create(meta: StoredSessionMeta): void;
  /** Synchronous on purpose: persisted before the runtime writes the update to the wire. */
  append(sessionId: string, update: AnySessionUpdate): void;
  /** Records the current config option values (the latest call wins). */
  setConfigValues(sessionId: string, values: ConfigValues): void;
  /** `undefined` when unknown. */
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Every stored session's metadata (any order; the runtime sorts and pages). */
  list(): Promise<StoredSessionMeta[]>;
  /** Forgets a session; unknown ids are not an error. */
  delete(sessionId: string): Promise<void>;
  /**
   * Optional: takes the single-writer lock of a stored session for this process while it is open
   * (the runtime calls it on new/load/resume); throws an `AcpError` ({@link SESSION_LOCKED}) when
   * another live process holds it. Taken again by the same process it is counted.
   */
  acquire?(sessionId: string): void;
  /** Optional: gives back one {@link acquire}; the lock goes when the count reaches 0. */
  release?(sessionId: string): void;
}

/**
 * JSON-RPC error code of a restore refused because another process has the session open
 * (`data: { sessionId, pid, host }`). In the implementation-defined server error range.
 */
export const SESSION_LOCKED = -32010;

/** Kinds that are live-only and never part of a replayable history (ACP-V1-LOAD-05, ACP-V2-NOTICE-01, ACP-V2-LIFE-15). */
export function isHistoryUpdate(update: AnySessionUpdate): boolean {
  return update.sessionUpdate !== 'notice' && update.sessionUpdate !== 'state_update';
}

/** Applies a `session_info_update` title patch to stored metadata. */
export function applyInfo(meta: StoredSessionMeta, update: AnySessionUpdate): void {
  if (update.sessionUpdate !== 'session_info_update') return;
  if (update.title !== undefined) meta.title = update.title;
  if (update.updatedAt !== undefined && update.updatedAt !== null) meta.updatedAt = update.updatedAt;
}

interface MemorySession {
  meta: StoredSessionMeta;
  /** `Date.now()` of the last append; formatted only when read (appends are hot). */
  touched: number;
  updates: AnySessionUpdate[];
}

/**
 * Keeps sessions in memory: for tests, embedding, and agents that need no durability.
 *
 * Updates are kept **by reference**, not copied: the runtime owns an update once it was handed to
 * `turn.send()`/`session.send()` (it is persisted and encoded as is), so authors must not mutate an
 * update object after sending it. `load()` returns deep copies, so what a caller does with a loaded
 * history never reaches the store.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, MemorySession>();

  /** @param options.history `false`: keep metadata and config values only, no updates (`serveAgent`'s `store: null`). */
  constructor(private readonly options: { history?: boolean } = {}) {}

  create(meta: StoredSessionMeta): void {
    this.sessions.set(meta.sessionId, { meta: structuredClone(meta), touched: 0, updates: [] });
  }
  append(sessionId: string, update: AnySessionUpdate): void {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    if (this.options.history !== false) s.updates.push(update);
    s.touched = Date.now();
    if (update.sessionUpdate === 'session_info_update') {
      const before = s.meta.updatedAt;
      applyInfo(s.meta, update);
      // an explicit `updatedAt` of the update stands until the next append
      if (s.meta.updatedAt !== before) s.touched = 0;
    }
  }
  setConfigValues(sessionId: string, values: ConfigValues): void {
    const s = this.sessions.get(sessionId);
    if (s) s.meta.configValues = { ...values };
  }
  async load(sessionId: string): Promise<StoredSession | undefined> {
    const s = this.sessions.get(sessionId);
    return s ? { meta: metaOf(s), updates: structuredClone(s.updates) } : undefined;
  }
  async list(): Promise<StoredSessionMeta[]> {
    return [...this.sessions.values()].map(metaOf);
  }
  async delete(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
  }
}

function metaOf(s: MemorySession): StoredSessionMeta {
  const meta = structuredClone(s.meta);
  meta.updatedAt = s.touched > 0 ? new Date(s.touched).toISOString() : (meta.updatedAt ?? meta.createdAt);
  return meta;
}

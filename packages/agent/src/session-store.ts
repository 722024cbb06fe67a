import { AcpError, OUT_OF_DESCRIPTORS, outOfDescriptors, type Meta, type AnySessionUpdate } from '@acp-kit/protocol';

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
  /** Unstable `session/archive`: hidden from `session/list` unless asked for. */
  archived?: boolean;
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
 * (everything but `state_update` and `notice`) **before** it is sent: an agent killed at any moment
 * can replay everything its client received. Replays re-encode the stored neutral updates for the
 * version of the connection asking.
 *
 * The writes (`create`, `append`, `setConfigValues`) may be synchronous (the JSONL and in-memory
 * stores: the write was handed to the operating system, or to memory, when they return) or return a
 * promise (a database: persisted when it resolves). For a promise the runtime holds the session's
 * wire output (updates, the end of a turn, a v2 prompt's acknowledgement) until the writes issued
 * before it resolved, so still only what is persisted reaches the wire, in order. A rejected write
 * ends the running turn with an `error` stop carrying the store's reason and refuses further prompts
 * of that session ({@link SESSION_STORE_UNAVAILABLE}); `create` rejecting fails `session/new`.
 */
export interface SessionStore {
  create(meta: StoredSessionMeta): void | Promise<void>;
  /** Persisted before the runtime writes the update to the wire (synchronously, or when the promise resolves). */
  append(sessionId: string, update: AnySessionUpdate): void | Promise<void>;
  /**
   * Optional: records a live-only update (`state_update`, `notice`, the v2 echo of a prompt) for
   * clients of the session on other server instances (never replayed: `load` leaves it out). The
   * runtime treats it like `append`: the update reaches the wire once this resolved, in order.
   */
  appendLive?(sessionId: string, update: AnySessionUpdate): void | Promise<void>;
  /** Records the current config option values (the latest call wins). */
  setConfigValues(sessionId: string, values: ConfigValues): void | Promise<void>;
  /** `undefined` when unknown. */
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Every stored session's metadata (any order; the runtime sorts and pages). */
  list(): Promise<StoredSessionMeta[]>;
  /**
   * Optional: one stored session's metadata as {@link list} reports it, `undefined` when unknown.
   * The runtime asks it when it only needs to know a session exists (`session/status`,
   * `session/set_title` of a session not open); without it the runtime searches {@link list},
   * which reads every stored session ({@link storedMeta}).
   */
  get?(sessionId: string): Promise<StoredSessionMeta | undefined>;
  /** Forgets a session; unknown ids are not an error. */
  delete(sessionId: string): Promise<void>;
  /**
   * Optional (unstable `session/fork`): stores a new session `meta` with a copy of `sourceId`'s
   * history and config values, in one step; `false` when `sourceId` is unknown. Without it the
   * runtime copies through `load` + `create` + `append` ({@link forkStored}).
   */
  fork?(sourceId: string, meta: StoredSessionMeta): Promise<boolean>;
  /**
   * Optional (unstable `session/archive`/`unarchive`): records the archive flag, which `list`
   * then reports; `false` when the session is unknown. The runtime offers archiving only with it.
   */
  setArchived?(sessionId: string, archived: boolean): Promise<boolean>;
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

/**
 * JSON-RPC error code of work refused or ended because the session store failed or cannot be
 * reached (a write rejected, the database is down). The message names the store and the reason.
 */
export const SESSION_STORE_UNAVAILABLE = -32011;

/** The error a failed store write stands for: the store's own {@link SESSION_STORE_UNAVAILABLE} error, else one naming the store. */
export function storeError(e: unknown): AcpError {
  if (e instanceof AcpError && e.code === SESSION_STORE_UNAVAILABLE) return e;
  // the system error's message names the store's files
  const reason = outOfDescriptors(e) ? OUT_OF_DESCRIPTORS : e instanceof Error ? e.message || e.name : String(e);
  return new AcpError(SESSION_STORE_UNAVAILABLE, `the session store failed: ${reason}`);
}

/** Whether a store write returned a promise (an asynchronous store) rather than nothing. */
export function isPending(result: void | Promise<void>): result is Promise<void> {
  return typeof (result as { then?: unknown } | undefined)?.then === 'function';
}

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

/**
 * Stores `meta` (a new session) with a copy of `sourceId`'s history and config values: the
 * store's own {@link SessionStore.fork} when it has one, else `load` + `create` + `append`.
 * `false` when the source is unknown.
 */
export async function forkStored(store: SessionStore, sourceId: string, meta: StoredSessionMeta): Promise<boolean> {
  if (store.fork) return store.fork(sourceId, meta);
  const source = await store.load(sourceId);
  if (!source) return false;
  await store.create({ ...meta, configValues: source.meta.configValues });
  for (const u of source.updates) if (isHistoryUpdate(u)) await store.append(meta.sessionId, u);
  if (source.meta.configValues) await store.setConfigValues(meta.sessionId, source.meta.configValues);
  return true;
}

/** One stored session's metadata: the store's own {@link SessionStore.get} when it has one, else a search of `list`. */
export async function storedMeta(store: SessionStore, sessionId: string): Promise<StoredSessionMeta | undefined> {
  if (store.get) return store.get(sessionId);
  return (await store.list()).find((m) => m.sessionId === sessionId);
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

  /**
   * @param options.history `false`: keep metadata and config values only, no updates (`serveAgent`'s `store: null`).
   * @param options.asyncAppend `true`: `create`, `append` and `setConfigValues` return a promise and
   *   take effect on a later macrotask, like a database's writes (exercises the runtime's asynchronous
   *   store path without a database).
   */
  constructor(private readonly options: { history?: boolean; asyncAppend?: boolean } = {}) {}

  create(meta: StoredSessionMeta): void | Promise<void> {
    return this.write(() =>
      this.sessions.set(meta.sessionId, { meta: structuredClone(meta), touched: 0, updates: [] }),
    );
  }
  append(sessionId: string, update: AnySessionUpdate): void | Promise<void> {
    // the synchronous path allocates nothing more than before: appends are hot
    if (!this.options.asyncAppend) return this.appendNow(sessionId, update);
    return this.write(() => this.appendNow(sessionId, update));
  }
  setConfigValues(sessionId: string, values: ConfigValues): void | Promise<void> {
    return this.write(() => {
      const s = this.sessions.get(sessionId);
      if (s) s.meta.configValues = { ...values };
    });
  }
  /** Runs a write now, or (asyncAppend) on a later macrotask; setImmediate callbacks run in order. */
  private write(apply: () => void): void | Promise<void> {
    if (!this.options.asyncAppend) {
      apply();
      return;
    }
    return new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        try {
          apply();
          resolve();
        } catch (e) {
          reject(e);
        }
      }),
    );
  }
  private appendNow(sessionId: string, update: AnySessionUpdate): void {
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
  async load(sessionId: string): Promise<StoredSession | undefined> {
    const s = this.sessions.get(sessionId);
    return s ? { meta: metaOf(s), updates: structuredClone(s.updates) } : undefined;
  }
  async list(): Promise<StoredSessionMeta[]> {
    return [...this.sessions.values()].map(metaOf);
  }
  async get(sessionId: string): Promise<StoredSessionMeta | undefined> {
    const s = this.sessions.get(sessionId);
    return s ? metaOf(s) : undefined;
  }
  async delete(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
  }
  async setArchived(sessionId: string, archived: boolean): Promise<boolean> {
    const s = this.sessions.get(sessionId);
    if (s) s.meta.archived = archived;
    return s !== undefined;
  }
}

function metaOf(s: MemorySession): StoredSessionMeta {
  const meta = structuredClone(s.meta);
  meta.updatedAt = s.touched > 0 ? new Date(s.touched).toISOString() : (meta.updatedAt ?? meta.createdAt);
  return meta;
}

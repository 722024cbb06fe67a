import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
  fstatSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { createHash, randomUUID, isObj } from '@acp-kit/protocol/internal';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { type AnySessionUpdate, AcpError } from '@acp-kit/protocol';
import { errnoCode, messageOf } from './error-text.js';
import {
  applyInfo,
  SESSION_LOCKED,
  type ConfigValues,
  type SessionStore,
  type StoredSession,
  type StoredSessionMeta,
} from './session-store.js';

/** The first line of a session file. */
interface HeaderLine extends StoredSessionMeta {
  acpKitSession: 1;
}
/** A non-update record line (updates are recognised by their `sessionUpdate` string). */
/** `session/archive` / `unarchive` (unstable): the latest line wins. */
interface ArchiveLine {
  record: 'archive';
  archived: boolean;
}
interface ConfigLine {
  record: 'config';
  values: ConfigValues;
}

/** The built-in agent's `info.name`: its sessions keep the unkeyed folder they always had. */
export const BUILTIN_AGENT_NAME = 'acp-kit-agent';

/**
 * Where sessions live by default. The data root is `$ACP_KIT_DATA_DIR`, else
 * `$XDG_DATA_HOME/acp-kit`, else `~/.local/share/acp-kit`. Under it each agent has its own store,
 * keyed by its `info.name` (sanitised to `[A-Za-z0-9._-]`), so two agents built on acp-kit never
 * list or resume each other's sessions: `<root>/agents/<name>/sessions`. Without a name, and for
 * the built-in agent ({@link BUILTIN_AGENT_NAME}), `<root>/sessions` (where it always was).
 */
export function defaultSessionDir(env: NodeJS.ProcessEnv = process.env, agentName?: string): string {
  const root = env.ACP_KIT_DATA_DIR
    ? env.ACP_KIT_DATA_DIR
    : join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'acp-kit');
  if (agentName === undefined || agentName === BUILTIN_AGENT_NAME) return join(root, 'sessions');
  return join(root, 'agents', agentDirName(agentName), 'sessions');
}

/** A file-name-safe, collision-resistant folder name for an agent name. */
export function agentDirName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  // names that differ only in replaced characters, or that are not usable as is, get a hash suffix
  if (safe === name && safe !== '' && safe !== '.' && safe !== '..') return safe;
  return `${safe.replace(/^\.+/, '_') || '_'}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** Files read at once by one `list()`. */
const LIST_CONCURRENCY = 16;
/** The index file next to each session file. */
const INDEX_SUFFIX = '.meta.json';

/** Metadata from an index file, or why it is unusable. */
function readIndex(text: string): StoredSessionMeta | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'index is not JSON';
  }
  if (!isObj(v) || v.acpKitIndex !== 1 || !isMetaLike(v)) return 'index is not an acp-kit session index';
  const { acpKitIndex: _i, ...meta } = v;
  return {
    ...meta,
    additionalDirectories: Array.isArray(meta.additionalDirectories) ? meta.additionalDirectories : [],
  };
}

/** Ids the runtime mints look like this; anything else cannot name a file here (no path tricks). */
const SAFE_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

/**
 * One append-only JSONL file per session: a header line (sessionId, cwd, additionalDirectories,
 * createdAt, title), then one neutral update per line, plus `{"record":"config"}` lines for config
 * values. Every append is a synchronous `write(2)` on an open descriptor, so an update is in the
 * kernel before the runtime sends it: a SIGKILLed agent loses nothing its client saw. A torn last
 * line (a write cut by a crash) is ignored on load and fenced off with a newline before appending.
 */
export class JsonlSessionStore implements SessionStore {
  readonly dir: string;
  private readonly fds = new Map<string, number>();
  /** Indexed metadata of the sessions this store wrote or read (no config values). */
  private readonly metas = new Map<string, StoredSessionMeta>();
  /** The list scan in progress: concurrent `list()` calls run one after the other. */
  private listing: Promise<void> = Promise.resolve();
  /** Locks this process holds, with how often each was taken. */
  private readonly locks = new Map<string, number>();

  private readonly onProblem: (problem: StoreProblem) => void;
  /** Problems already reported (each once per store, not on every list). */
  private readonly reported = new Set<string>();

  /**
   * @param options.dir where the files live (default {@link defaultSessionDir}).
   * @param options.onProblem hears about corrupt files and lines (default: a warning on stderr,
   *   never stdout); each problem is reported once per store.
   */
  constructor(options: { dir?: string; onProblem?: (problem: StoreProblem) => void } = {}) {
    this.dir = options.dir ?? defaultSessionDir();
    this.onProblem =
      options.onProblem ??
      ((p) => process.stderr.write(`[acp-kit session store] warn: ${p.file}:${p.line}: ${p.message}\n`));
  }

  private problem(p: StoreProblem): void {
    const key = `${p.file}:${p.line}:${p.message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.onProblem(p);
  }

  private file(sessionId: string): string | undefined {
    return SAFE_ID.test(sessionId) ? join(this.dir, `${sessionId}.jsonl`) : undefined;
  }

  private fd(sessionId: string): number | undefined {
    let fd = this.fds.get(sessionId);
    if (fd !== undefined) return fd;
    const file = this.file(sessionId);
    if (!file) return undefined;
    try {
      fd = openSync(file, 'r+');
    } catch {
      return undefined;
    }
    // fence off a torn last line so the next record starts on its own line
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) writeSync(fd, '\n', size);
    }
    closeSync(fd);
    fd = openSync(file, 'a', 0o600);
    this.fds.set(sessionId, fd);
    return fd;
  }

  private writeLine(sessionId: string, value: object): void {
    const fd = this.fd(sessionId);
    if (fd === undefined) return;
    writeSync(fd, JSON.stringify(value) + '\n');
  }

  create(meta: StoredSessionMeta): void {
    const file = this.file(meta.sessionId);
    if (!file)
      throw new Error(
        `session id ${JSON.stringify(meta.sessionId)} cannot be stored (allowed: letters, digits, _ . -)`,
      );
    // histories are private: other users of the machine read neither the folder nor the files
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const header: HeaderLine = { acpKitSession: 1, ...meta, title: meta.title ?? null };
    const fd = openSync(file, 'w', 0o600);
    writeSync(fd, JSON.stringify(header) + '\n');
    closeSync(fd);
    const { acpKitSession: _v, configValues: _c, ...indexed } = header;
    this.writeIndex(meta.sessionId, indexed);
  }

  append(sessionId: string, update: AnySessionUpdate): void {
    this.writeLine(sessionId, update);
    // titles (and explicit updatedAt) are what `list` shows besides the header: kept in the index.
    // An update with neither (the built-in agent's token usage, one every turn) leaves the index as
    // it is: rewriting it (open, write, rename) cost more than the turn's chunks under `serve`
    if (
      update.sessionUpdate === 'session_info_update' &&
      (update.title !== undefined || (update.updatedAt !== undefined && update.updatedAt !== null))
    ) {
      const meta = this.indexed(sessionId);
      if (meta) {
        applyInfo(meta, update);
        this.writeIndex(sessionId, meta);
      }
    }
  }

  private indexFile(sessionId: string): string | undefined {
    return SAFE_ID.test(sessionId) ? join(this.dir, `${sessionId}${INDEX_SUFFIX}`) : undefined;
  }

  /** The small `<id>.meta.json` next to a session file: what `session/list` needs, no history. */
  private writeIndex(sessionId: string, meta: StoredSessionMeta): void {
    const file = this.indexFile(sessionId);
    if (!file) return;
    const { configValues: _c, ...indexed } = meta;
    this.metas.set(sessionId, indexed);
    try {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ acpKitIndex: 1, ...indexed }), { mode: 0o600 });
      renameSync(tmp, file);
    } catch (e) {
      // the history is what matters; a missing index is rebuilt from the file by `list`
      this.problem({ file, line: 1, message: `could not write the session index (${messageOf(e)})` });
    }
  }

  /** The indexed metadata of a session (memory, else its index file, else its session file). */
  private indexed(sessionId: string): StoredSessionMeta | undefined {
    const known = this.metas.get(sessionId);
    if (known) return known;
    const index = this.indexFile(sessionId);
    const file = this.file(sessionId);
    if (!index || !file) return undefined;
    let meta: StoredSessionMeta | string | undefined;
    try {
      meta = readIndex(readFileSync(index, 'utf8'));
    } catch {
      /* below */
    }
    if (meta === undefined || typeof meta === 'string') {
      try {
        meta = parseMetaOnly(readFileSync(file, 'utf8'));
      } catch {
        return undefined;
      }
    }
    if (typeof meta === 'string') return undefined;
    delete meta.configValues;
    this.metas.set(sessionId, meta);
    return meta;
  }

  setConfigValues(sessionId: string, values: ConfigValues): void {
    const line: ConfigLine = { record: 'config', values };
    this.writeLine(sessionId, line);
  }

  /** An `{"record":"archive"}` line, and the flag in the index `list` reads. */
  async setArchived(sessionId: string, archived: boolean): Promise<boolean> {
    const meta = this.indexed(sessionId);
    if (!meta || this.fd(sessionId) === undefined) return false;
    const line: ArchiveLine = { record: 'archive', archived };
    this.writeLine(sessionId, line);
    meta.archived = archived;
    this.writeIndex(sessionId, meta);
    return true;
  }

  /**
   * A copy of the source file under a new header: its lines (history, config records) are copied
   * as they are, without parsing them. The archive flag is the source's own, not copied.
   */
  async fork(sourceId: string, meta: StoredSessionMeta): Promise<boolean> {
    const from = this.file(sourceId);
    const to = this.file(meta.sessionId);
    if (!to) throw new Error(`session id ${JSON.stringify(meta.sessionId)} cannot be stored`);
    let text: string;
    try {
      text = from ? await readFile(from, 'utf8') : '';
    } catch {
      return false;
    }
    const nl = text.indexOf('\n');
    if (!from || nl < 0) return false;
    const body = text
      .slice(nl + 1)
      .split('\n')
      .filter((l) => !l.startsWith('{"record":"archive"'))
      .join('\n');
    // the title `list` shows comes from the index: the source's, unless the copy has its own
    const title = meta.title ?? this.indexed(sourceId)?.title ?? null;
    const header: HeaderLine = { acpKitSession: 1, ...meta, title };
    delete header.archived;
    // `wx`: never over a session that exists; a torn last line of the source stays a torn last line
    await writeFile(to, JSON.stringify(header) + '\n' + body, { mode: 0o600, flag: 'wx' });
    const { acpKitSession: _v, configValues: _c, ...indexed } = header;
    this.writeIndex(meta.sessionId, indexed);
    return true;
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const file = this.file(sessionId);
    if (!file) return undefined;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return undefined;
    }
    const detailed = parseSessionFileDetailed(text, file);
    if (detailed.header) {
      const h = detailed.header;
      throw AcpError.internal(
        `session ${sessionId} is stored corrupt: ${h.file}:${h.line}: ${h.message}; repair or remove that file`,
        { sessionId, file: h.file, line: h.line },
      );
    }
    const { session: parsed, problems } = detailed;
    for (const p of problems) this.problem(p);
    const st = await stat(file).catch(() => undefined);
    if (st && !parsed.meta.updatedAt) parsed.meta.updatedAt = st.mtime.toISOString();
    return parsed;
  }

  /**
   * Every session's metadata from the small index files (`<id>.meta.json`) and one `stat` per
   * session: no history is read. A session without a usable index (written by an older version,
   * or by a crash between the two writes) is indexed once from its file. At most
   * {@link LIST_CONCURRENCY} files are open at once, and concurrent calls share one scan at a time.
   */
  async list(): Promise<StoredSessionMeta[]> {
    const previous = this.listing;
    let done!: () => void;
    this.listing = new Promise<void>((r) => (done = r));
    try {
      await previous;
      return await this.scan();
    } finally {
      done();
    }
  }

  private async scan(): Promise<StoredSessionMeta[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const ids = names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length));
    const out: StoredSessionMeta[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++]) {
        const meta = await this.listOne(id);
        if (meta) out.push(meta);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, ids.length) }, worker));
    return out;
  }

  /** One session's metadata as {@link list} reports it, from its index file and one `stat`. */
  async get(sessionId: string): Promise<StoredSessionMeta | undefined> {
    // an id that cannot name a file of this store is not stored here
    return this.file(sessionId) ? this.listOne(sessionId) : undefined;
  }

  private async listOne(sessionId: string): Promise<StoredSessionMeta | undefined> {
    const file = join(this.dir, `${sessionId}.jsonl`);
    const index = this.indexFile(sessionId);
    try {
      const st = await stat(file);
      // the index file, not this store's memory: another process may have written the session since
      let meta: StoredSessionMeta | string | undefined = index
        ? await readFile(index, 'utf8').then(readIndex, () => undefined)
        : undefined;
      if (meta === undefined || typeof meta === 'string') {
        // no usable index: read the file once and write one
        meta = parseMetaOnly(await readFile(file, 'utf8'));
        if (typeof meta === 'string') {
          this.problem({ file, line: 1, message: `${meta}; the session is not listed (repair or remove the file)` });
          return undefined;
        }
        if (meta.sessionId === sessionId) this.writeIndex(sessionId, { ...meta });
      }
      delete meta.configValues;
      meta.updatedAt = meta.updatedAt ?? st.mtime.toISOString();
      return meta;
    } catch {
      return undefined; // vanished or unreadable: not listed
    }
  }

  async delete(sessionId: string): Promise<void> {
    // never pull a session from under another process that has it open
    const ours = this.locks.has(sessionId);
    if (!ours) this.acquire(sessionId);
    try {
      await this.deleteFile(sessionId);
    } finally {
      if (!ours) this.release(sessionId);
    }
  }

  private async deleteFile(sessionId: string): Promise<void> {
    this.metas.delete(sessionId);
    const index = this.indexFile(sessionId);
    if (index) await unlink(index).catch(() => undefined);
    const fd = this.fds.get(sessionId);
    if (fd !== undefined) {
      this.fds.delete(sessionId);
      closeSync(fd);
    }
    const file = this.file(sessionId);
    if (file) await unlink(file).catch(() => undefined);
  }

  /**
   * Single writer per session: `<id>.lock` names the holding process. It appears complete or not at
   * all (written aside, then hard-linked into place, which fails if it exists). A lock whose process
   * is gone (same host, pid not alive) is stale and taken over under `<id>.lock.takeover`, a mutex
   * created exclusively: of two processes taking over one stale lock at once, exactly one wins.
   */
  acquire(sessionId: string): void {
    const held = this.locks.get(sessionId);
    if (held !== undefined) {
      this.locks.set(sessionId, held + 1);
      return;
    }
    const file = this.file(sessionId);
    if (!file) return;
    const lock = file.replace(/\.jsonl$/, '.lock');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const me: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    if (!createLock(lock, me)) {
      const holder = readLock(lock);
      if (holder && holder.pid === process.pid && holder.host === me.host) {
        // ours, left behind by another store object of this process
        this.locks.set(sessionId, 1);
        return;
      }
      if (!holder && lockAgeMs(lock) < 5000) {
        // an empty lock is being written by an older acp-kit (open, then write)
        throw new AcpError(
          SESSION_LOCKED,
          `Session ${sessionId} is being opened by another process; try again. Lock file: ${lock}`,
          { sessionId },
        );
      }
      if (holder && (holder.host !== me.host || pidAlive(holder.pid))) throw lockedBy(sessionId, lock, holder, me.host);
      takeOver(sessionId, lock, holder, me);
    }
    this.locks.set(sessionId, 1);
  }

  release(sessionId: string): void {
    const held = this.locks.get(sessionId);
    if (held === undefined) return;
    if (held > 1) {
      this.locks.set(sessionId, held - 1);
      return;
    }
    this.locks.delete(sessionId);
    this.metas.delete(sessionId);
    const file = this.file(sessionId);
    if (!file) return;
    const lock = file.replace(/\.jsonl$/, '.lock');
    if (readLock(lock)?.pid === process.pid) {
      try {
        unlinkSync(lock);
      } catch {
        /* already gone */
      }
    }
  }

  /** Closes the open descriptors (appends reopen them) and gives back every lock of this store. */
  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
    for (const id of [...this.locks.keys()]) {
      this.locks.set(id, 1);
      this.release(id);
    }
  }
}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

/** Creates `lock` naming `me`, complete or not at all; false if a lock exists. */
function createLock(lock: string, me: LockInfo): boolean {
  const aside = `${lock}.${process.pid}.${randomUUID()}`;
  writeFileSync(aside, JSON.stringify(me), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, lock);
    return true;
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST') throw e;
    return false;
  } finally {
    unlinkSync(aside);
  }
}

/**
 * Replaces the stale lock `seen` (undefined: unreadable) with ours, under the takeover mutex; throws
 * SESSION_LOCKED if another process holds the mutex or took the lock over first.
 */
function takeOver(sessionId: string, lock: string, seen: LockInfo | undefined, me: LockInfo): void {
  const mutex = `${lock}.takeover`;
  if (!createLock(mutex, me)) {
    // a process killed inside the few calls below leaves the mutex behind: old ones are void
    if (lockAgeMs(mutex) < 5000)
      throw new AcpError(
        SESSION_LOCKED,
        `Session ${sessionId} is being opened by another process; try again. Lock file: ${lock}`,
        { sessionId },
      );
    unlinkQuiet(mutex); // (gone already: the takeover that held it just ended)
    if (!createLock(mutex, me))
      throw new AcpError(
        SESSION_LOCKED,
        `Session ${sessionId} is being opened by another process; try again. Lock file: ${lock}`,
        { sessionId },
      );
  }
  try {
    const now = readLock(lock);
    const same =
      now === undefined
        ? seen === undefined
        : seen !== undefined && now.pid === seen.pid && now.host === seen.host && now.since === seen.since;
    if (!same) {
      if (now) throw lockedBy(sessionId, lock, now, me.host);
      throw new AcpError(
        SESSION_LOCKED,
        `Session ${sessionId} is being opened by another process; try again. Lock file: ${lock}`,
        { sessionId },
      );
    }
    unlinkQuiet(lock);
    if (!createLock(lock, me))
      throw new AcpError(
        SESSION_LOCKED,
        `Session ${sessionId} is being opened by another process; try again. Lock file: ${lock}`,
        { sessionId },
      );
  } finally {
    unlinkSync(mutex);
  }
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
}

function lockedBy(sessionId: string, lock: string, holder: LockInfo, host: string): AcpError {
  return new AcpError(
    SESSION_LOCKED,
    `Session ${sessionId} is open in another process (pid ${holder.pid}${holder.host !== host ? ` on ${holder.host}` : ''}, since ${holder.since}); close it there first. Lock file: ${lock}`,
    {
      sessionId,
      pid: holder.pid,
      host: holder.host,
    },
  );
}

function readLock(file: string): LockInfo | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isObj(v) && typeof v.pid === 'number'
      ? {
          pid: v.pid,
          host: typeof v.host === 'string' ? v.host : hostname(),
          since: typeof v.since === 'string' ? v.since : '?',
        }
      : undefined;
  } catch {
    return undefined;
  }
}

function lockAgeMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM';
  }
}

/** Why a header line is not a session header, or the header's metadata. */
function readHeader(line: string | undefined): StoredSessionMeta | string {
  if (!line) return 'the header line is empty';
  let h: unknown;
  try {
    h = JSON.parse(line);
  } catch (e) {
    return `the header line is not valid JSON (${messageOf(e)})`;
  }
  if (!isObj(h)) return 'the header line is not a JSON object';
  if (h.acpKitSession !== 1)
    return `the header line has no "acpKitSession": 1 (got ${JSON.stringify(h.acpKitSession) ?? 'none'})`;
  if (typeof h.sessionId !== 'string') return 'the header line has no string "sessionId"';
  if (!isMetaLike(h)) return 'the header line has no string "cwd"';
  const { acpKitSession: _v, ...meta } = h;
  return {
    ...meta,
    additionalDirectories: Array.isArray(meta.additionalDirectories) ? meta.additionalDirectories : [],
  };
}

/** A problem found in a stored session file: where, and what is wrong. */
export interface StoreProblem {
  file: string;
  /** 1-based line number */
  line: number;
  message: string;
}

/** A parsed session file, or why its header is unusable; `problems` lists lines that were skipped. */
export function parseSessionFileDetailed(
  text: string,
  file = '<session file>',
):
  | { session: StoredSession; header?: undefined; problems: StoreProblem[] }
  | { session?: undefined; header: StoreProblem; problems: StoreProblem[] } {
  const lines = text.split('\n');
  const h = readHeader(lines[0]);
  if (typeof h === 'string') return { header: { file, line: 1, message: h }, problems: [] };
  const meta = h;
  const updates: AnySessionUpdate[] = [];
  const locations: string[] = [];
  const problems: StoreProblem[] = [];
  // the last line may be torn by a crash mid-write: not a problem, it is fenced off on the next append
  const last = lines.length - 1;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      if (i !== last) problems.push({ file, line: i + 1, message: `not valid JSON (${messageOf(e)}); skipped` });
      continue;
    }
    if (!isObj(v)) {
      problems.push({ file, line: i + 1, message: 'not a JSON object; skipped' });
      continue;
    }
    if (isStoredUpdate(v)) {
      updates.push(v);
      locations.push(`${file}:${i + 1}`);
      applyInfo(meta, v);
    } else if (v.record === 'config' && isConfigValues(v.values)) {
      meta.configValues = v.values;
    } else if (v.record === 'archive' && typeof v.archived === 'boolean') {
      meta.archived = v.archived;
    } else {
      problems.push({
        file,
        line: i + 1,
        message: 'neither an update (no string "sessionUpdate") nor a config record; skipped',
      });
    }
  }
  return { session: { meta, updates, locations }, problems };
}

/** Parses a whole session file; lines that are not JSON (a torn write) are skipped. */
export function parseSessionFile(text: string): StoredSession | undefined {
  const { session } = parseSessionFileDetailed(text);
  if (session) delete session.locations;
  return session;
}

/** Header plus title changes, without parsing every update line. */
function parseMetaOnly(text: string): StoredSessionMeta | string {
  const nl = text.indexOf('\n');
  const meta = readHeader(nl < 0 ? text : text.slice(0, nl));
  if (typeof meta === 'string' || nl < 0) return meta;
  for (const line of text.slice(nl + 1).split('\n')) {
    const archive = line.startsWith('{"record":"archive"');
    if (!archive && !line.includes('"session_info_update"')) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isObj(v) && isStoredUpdate(v)) applyInfo(meta, v);
      else if (archive && isObj(v) && typeof v.archived === 'boolean') meta.archived = v.archived;
    } catch {
      /* torn */
    }
  }
  return meta;
}

/** A parsed line or index with the metadata fields a session cannot do without. */
function isMetaLike<T extends Record<string, unknown>>(v: T): v is T & StoredSessionMeta {
  return typeof v.sessionId === 'string' && typeof v.cwd === 'string';
}

/** A stored update line: any object with a string `sessionUpdate` (its body is checked when it is replayed). */
function isStoredUpdate(v: Record<string, unknown>): v is Record<string, unknown> & AnySessionUpdate {
  return typeof v.sessionUpdate === 'string';
}

function isConfigValues(v: unknown): v is ConfigValues {
  return typeof v === 'object' && v !== null;
}

import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { isObj } from '@acp-kit/protocol/internal';

/**
 * The stored owner of each session, as an append-only log (one JSON line per change):
 * `{"acpKitOwners":1,"owners":{sessionId:owner}}` (a snapshot: the first line after a compaction,
 * and the whole of a file written before the log) then `{"add":sessionId,"owner":owner}` and
 * `{"remove":sessionId}` lines. Rewriting the whole file on each new session cost time in
 * proportion to the sessions stored (8.99 ms per session/new at 10,000); appending a line does not.
 *
 * Durability: an appended line is written to the kernel before the session's answer leaves, with
 * no fsync, so a crash of the process loses nothing, and a power loss may lose the last lines: a
 * session whose owner is lost is then unowned, which with several tokens hides it from all of
 * them (safe, and the operator can assign it; docs/remote.md "Tenants"). A compaction (on start,
 * and when the log holds more than {@link COMPACT_FACTOR} times the live entries) is written aside,
 * fsynced, then renamed: a crash leaves the old log or the new one. Files 0600 in a 0700 folder.
 */
export class OwnersLog {
  /** lines in the log since its snapshot */
  private lines = 0;

  constructor(
    readonly file: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Reads the log (a torn last line is ignored with a warning; any other bad line stops the start) and compacts it. */
  load(): Map<string, string> {
    const owners = readOwnersLog(this.file, this.log);
    this.compact(owners);
    return owners;
  }

  /** Records that `sessionId` is `owner`'s (`owners` already says so). */
  add(sessionId: string, owner: string, owners: Map<string, string>): void {
    this.append({ add: sessionId, owner }, owners);
  }

  /** Records that `sessionId` has no owner any more (`owners` already says so). */
  remove(sessionId: string, owners: Map<string, string>): void {
    this.append({ remove: sessionId }, owners);
  }

  private append(entry: object, owners: Map<string, string>): void {
    // opened per line rather than held: a server needs no close for it, and the open is O(1) too
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    this.lines++;
    if (this.lines > COMPACT_FACTOR * Math.max(owners.size, COMPACT_FLOOR)) this.compact(owners);
  }

  /** Replaces the log with one snapshot line (written aside, fsynced, renamed). */
  compact(owners: Map<string, string>): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const aside = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(aside, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ acpKitOwners: 1, owners: Object.fromEntries(owners) })}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, this.file);
    this.lines = 0;
  }
}

/** The log is compacted when it holds more lines than this many times the live entries. */
export const COMPACT_FACTOR = 4;
/** ... counting at least this many live entries (a handful of sessions do not compact on every delete). */
const COMPACT_FLOOR = 256;

/** The owners in `file` (none if it is absent). */
export function readOwnersLog(file: string, log: (line: string) => void): Map<string, string> {
  const owners = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return owners;
    throw e;
  }
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  // a line without its newline is one whose write was cut short (a crash mid-append): it never
  // completed, so no session's answer depended on it
  if (torn !== '' && !applyLine(new Map(), torn))
    log(`${file}: ignoring a torn last line (${torn.length} bytes without a newline)`);
  else if (torn !== '') lines.push(torn);
  lines.forEach((line, i) => {
    // a bad line with complete lines after it is not a torn append: serving on a guess would hand sessions to anyone
    if (!applyLine(owners, line))
      throw new Error(
        `${file}:${i + 1}: not an acp-kit owners file line; fix or remove that line (see docs/remote.md "Tenants")`,
      );
  });
  return owners;
}

function applyLine(owners: Map<string, string>, line: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return false;
  }
  if (!isObj(v)) return false;
  if (v.acpKitOwners === 1 && isObj(v.owners)) {
    owners.clear();
    for (const [id, o] of Object.entries(v.owners)) if (typeof o === 'string') owners.set(id, o);
    return true;
  }
  if (typeof v.add === 'string' && typeof v.owner === 'string') {
    owners.set(v.add, v.owner);
    return true;
  }
  if (typeof v.remove === 'string') {
    owners.delete(v.remove);
    return true;
  }
  return false;
}

import { constants, existsSync, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * File access confined to a set of root directories, safe against check-then-open races.
 *
 * A path check (realpath + "is it inside a root?") followed by a plain open leaves a window in
 * which another process can swap a file or a directory for a symlink to somewhere else. Here
 * every descriptor is verified *after* it is opened, by where it really is, so a swap can at
 * worst make the operation fail:
 *
 * - reads and writes to existing files open the path (following links), then look up the opened
 *   descriptor's real path (`/proc/self/fd/<fd>` on Linux) and refuse it unless it lies inside a
 *   root; existing files are opened without `O_TRUNC` and truncated only after that check;
 * - new files and directories are created relative to an already verified directory descriptor
 *   (`/proc/self/fd/<dirfd>/<name>`, the openat(2) of Node), with `O_CREAT|O_EXCL|O_NOFOLLOW`, so
 *   neither a swapped parent nor a (dangling) symlink in the final component is followed.
 *
 * Platform limits: without `/proc/self/fd` (macOS, Windows) the opened descriptor is checked by
 * device/inode against a fresh realpath of the path instead; that narrows the window but cannot
 * close it against a local process racing the check, and a new file may be created before its
 * location is refused (it is removed again).
 *
 * @internal shared by the agent tools' and the client's `fs/*` sandboxes; not public API.
 */

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
const MAX_LINK_HOPS = 40;

const procFd = process.platform === 'linux' && existsSync('/proc/self/fd');

/** The opened file or directory lies outside every root (a symlink or a swap led there). */
export class ConfinementError extends Error {
  override readonly name = 'ConfinementError';
  readonly code = 'EOUTSIDE';
  constructor(
    /** the path that was opened */
    readonly path: string,
    /** where it really is */
    readonly real: string,
  ) {
    super(`${path} resolves to ${real}, outside the allowed roots`);
  }
}

/** True when `child` equals `root` or lies below it (both absolute and normalized). */
export function isWithinRoot(root: string, child: string): boolean {
  if (child === root) return true;
  const rel = path.relative(root, child);
  return rel !== '' && !rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel);
}

function errCode(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/** Where the open descriptor `fh` (opened as `opened`) really is, or `undefined` if unknowable. */
async function realPathOf(fh: FileHandle, opened: string): Promise<string | undefined> {
  if (procFd) {
    const link = await fsp.readlink(`/proc/self/fd/${fh.fd}`).catch(() => undefined);
    if (link === undefined || !link.startsWith('/')) return undefined;
    return link.endsWith(' (deleted)') ? link.slice(0, -' (deleted)'.length) : link;
  }
  // fallback: the path's current real location, accepted only if it is the very inode we hold
  try {
    const real = await fsp.realpath(opened);
    const [a, b] = await Promise.all([fh.stat(), fsp.stat(real)]);
    return a.dev === b.dev && a.ino === b.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

async function verify(fh: FileHandle, opened: string, realRoots: readonly string[]): Promise<string> {
  const real = await realPathOf(fh, opened);
  if (real === undefined || !realRoots.some((r) => isWithinRoot(r, real))) {
    await fh.close().catch(() => undefined);
    throw new ConfinementError(opened, real ?? '(unknown location)');
  }
  return real;
}

/** The path naming `name` inside the directory held open by `dir` (openat-like on Linux). */
function inDir(dir: { fh: FileHandle; real: string }, name: string): string {
  return procFd ? `/proc/self/fd/${dir.fh.fd}/${name}` : path.join(dir.real, name);
}

/**
 * Opens `file` for reading (links followed) and verifies that the opened file lies inside
 * `realRoots` (real paths of the roots). Throws {@link ConfinementError} otherwise, or the open
 * error (`ENOENT`, `ELOOP`, `ENAMETOOLONG`, ...). Never blocks on a FIFO.
 */
export async function openConfinedForRead(file: string, realRoots: readonly string[]): Promise<FileHandle> {
  const fh = await fsp.open(file, constants.O_RDONLY | O_NONBLOCK | O_NOCTTY);
  await verify(fh, file, realRoots);
  return fh;
}

/** Opens the directory `dir` (creating missing directories inside the roots when `create`), verified. */
async function openConfinedDir(
  dir: string,
  realRoots: readonly string[],
  create: boolean,
  depth = 0,
): Promise<{ fh: FileHandle; real: string }> {
  try {
    const fh = await fsp.open(dir, constants.O_RDONLY | O_DIRECTORY);
    return { fh, real: await verify(fh, dir, realRoots) };
  } catch (e) {
    if (errCode(e) !== 'ENOENT' || !create || depth > 4096) throw e;
  }
  const parentPath = path.dirname(dir);
  if (parentPath === dir) throw Object.assign(new Error(`no such directory: ${dir}`), { code: 'ENOENT' });
  const parent = await openConfinedDir(parentPath, realRoots, create, depth + 1);
  try {
    const sub = inDir(parent, path.basename(dir));
    await fsp.mkdir(sub).catch((e: unknown) => {
      if (errCode(e) !== 'EEXIST') throw e;
    });
    const fh = await fsp.open(sub, constants.O_RDONLY | O_DIRECTORY);
    return { fh, real: await verify(fh, dir, realRoots) };
  } finally {
    await parent.fh.close().catch(() => undefined);
  }
}

/**
 * Lists the directory `dir` after verifying that the directory actually opened lies inside
 * `realRoots` (a directory swapped for a link to outside is refused, its names never listed).
 */
export async function readdirConfined(dir: string, realRoots: readonly string[]): Promise<import('node:fs').Dirent[]> {
  const d = await openConfinedDir(dir, realRoots, false);
  try {
    return await fsp.readdir(inDir(d, '.'), { withFileTypes: true });
  } finally {
    await d.fh.close().catch(() => undefined);
  }
}

async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off, off);
    off += bytesWritten;
  }
}

/**
 * Writes `content` to `file`, replacing an existing file's content or creating the file (and,
 * with `mkdirs`, missing parent directories), all verified to lie inside `realRoots`. Links that
 * stay inside are followed, also dangling ones (the link's target is created). Throws
 * {@link ConfinementError} before anything is written outside.
 */
export async function writeConfined(
  file: string,
  content: string | Uint8Array,
  realRoots: readonly string[],
  opts: { mkdirs?: boolean } = {},
): Promise<void> {
  const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  let target = file;
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    // 1. an existing file: open without truncating, verify, then replace the content
    let fh: FileHandle | undefined;
    try {
      fh = await fsp.open(target, constants.O_WRONLY | O_NONBLOCK | O_NOCTTY);
    } catch (e) {
      if (errCode(e) !== 'ENOENT') throw e;
    }
    if (fh) {
      await verify(fh, target, realRoots);
      try {
        if (!(await fh.stat()).isFile())
          throw Object.assign(new Error(`${target} is not a regular file`), { code: 'EISDIR' });
        await fh.truncate(0);
        await writeAll(fh, data);
      } finally {
        await fh.close().catch(() => undefined);
      }
      return;
    }
    // 2. a new file: create it inside the verified parent, never through a link
    const dir = await openConfinedDir(path.dirname(target), realRoots, opts.mkdirs === true);
    const name = path.basename(target);
    try {
      let created: FileHandle;
      try {
        created = await fsp.open(
          inDir(dir, name),
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW | O_NOCTTY,
          0o666,
        );
      } catch (e) {
        if (errCode(e) !== 'EEXIST') throw e;
        // a dangling link (or a file created meanwhile): follow the link's text ourselves and retry
        const link = await fsp.readlink(inDir(dir, name)).catch(() => undefined);
        target = link === undefined ? target : path.resolve(dir.real, link);
        continue;
      }
      try {
        await verify(created, target, realRoots).catch(async (e: unknown) => {
          if (!procFd) await fsp.unlink(path.join(dir.real, name)).catch(() => undefined);
          throw e;
        });
        await writeAll(created, data);
      } finally {
        await created.close().catch(() => undefined);
      }
      return;
    } finally {
      await dir.fh.close().catch(() => undefined);
    }
  }
  throw Object.assign(new Error(`too many symbolic links: ${file}`), { code: 'ELOOP' });
}

import { lstat, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve, sep, dirname, basename } from 'node:path';
import { ConfinementError, openConfinedForRead, readdirConfined, writeConfined } from '@acp-kit/protocol/internal';
import { errnoCode } from '@acp-kit/agent/internal';

/** A path the sandbox refused (outside the session roots). */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** A path checked by the {@link Sandbox}. */
export interface ResolvedPath {
  /** Absolute path as the user/client names it (cwd-based, normalized; for display, diffs and `fs/*`). */
  path: string;
  /** The same path with symlinks resolved (for local disk access). */
  real: string;
}

function within(root: string, p: string): boolean {
  if (p === root) return true;
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

const MAX_LINK_HOPS = 40;

/**
 * Realpath of `p` even when it (or some of its parents) does not exist yet: the longest
 * existing ancestor is resolved and the missing tail appended, so a new file under a
 * symlinked directory is still judged by where it would really land. A dangling symlink is
 * followed to its (missing) target: writing through it would create the target, so
 * `notes.txt -> ../out/new.txt` is judged as `../out/new.txt`.
 */
async function realpathLoose(p: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new SandboxError(`path ${p}: too many levels of symbolic links`);
  try {
    return await realpath(p);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ELOOP') throw new SandboxError(`path ${p}: too many levels of symbolic links`);
    if (code === 'ENAMETOOLONG')
      throw new SandboxError(`path is too long (${p.length} characters): the file system refused it (ENAMETOOLONG)`);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  const st = await lstat(p).catch(() => undefined);
  if (st?.isSymbolicLink()) return realpathLoose(resolve(dirname(p), await readlink(p)), hops + 1);
  const parent = dirname(p);
  if (parent === p) return p;
  return join(await realpathLoose(parent, hops + 1), basename(p));
}

/**
 * Confines file access to the session's roots (`cwd` + `additionalDirectories`). Relative
 * paths are resolved against `cwd`; `..`, absolute paths and symlinks that land outside every
 * root are refused with a {@link SandboxError} naming the path and the roots.
 */
export class Sandbox {
  readonly cwd: string;
  readonly roots: readonly string[];
  private realRoots: Promise<string[]> | undefined;

  constructor(cwd: string, additionalDirectories: readonly string[] = []) {
    this.cwd = resolve(cwd);
    this.roots = [this.cwd, ...additionalDirectories.map((d) => resolve(this.cwd, d))];
  }

  private getRealRoots(): Promise<string[]> {
    this.realRoots ??= Promise.all(this.roots.map((r) => realpathLoose(r)));
    return this.realRoots;
  }

  private refuse(display: string, real?: string): never {
    const via = real && real !== display ? ` (resolves to ${real})` : '';
    throw new SandboxError(`path ${display}${via} is outside the session roots: ${this.roots.join(', ')}`);
  }

  /** Checks `input` and returns its absolute and real forms, or throws {@link SandboxError}. */
  async resolve(input: string): Promise<ResolvedPath> {
    if (typeof input !== 'string' || input.length === 0) throw new SandboxError('path must be a non-empty string');
    if (input.includes('\0')) throw new SandboxError('path must not contain NUL characters');
    const path = normalize(isAbsolute(input) ? input : resolve(this.cwd, input));
    // lexical check first: `..` escapes are refused even when the target does not exist
    if (!this.roots.some((r) => within(r, path))) this.refuse(path);
    const real = await realpathLoose(path);
    const realRoots = await this.getRealRoots();
    if (!realRoots.some((r) => within(r, real))) this.refuse(path, real);
    return { path, real };
  }

  /**
   * Reads a checked file from local disk. The opened file is verified to lie inside the roots
   * *after* opening (a path swapped for a symlink between {@link resolve} and the read is
   * refused, never read). Refuses directories and files above `maxBytes`.
   */
  async readFile(p: ResolvedPath, maxBytes: number): Promise<Buffer> {
    let fh;
    try {
      fh = await openConfinedForRead(p.real, await this.getRealRoots());
    } catch (e) {
      throw this.ioError(e, p);
    }
    try {
      const st = await fh.stat();
      if (st.isDirectory()) throw new Error(`${p.path} is a directory (use list_files)`);
      if (!st.isFile()) throw new Error(`${p.path} is not a regular file`);
      if (st.size > maxBytes) throw new Error(`${p.path} is too large to read (${st.size} bytes, limit ${maxBytes})`);
      return await fh.readFile();
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  /**
   * Writes a checked file on local disk (creating it and missing parent directories), never
   * outside the roots: existing files are verified after opening and before truncation, new
   * ones are created inside a verified directory without following links.
   */
  async writeFile(p: ResolvedPath, content: string): Promise<void> {
    try {
      await writeConfined(p.real, content, await this.getRealRoots(), { mkdirs: true });
    } catch (e) {
      throw this.ioError(e, p);
    }
  }

  /**
   * Lists a directory on local disk (by its real path), verified after opening like
   * {@link readFile}: a directory swapped for a link to outside is refused, never listed.
   */
  async readdir(realDir: string): Promise<import('node:fs').Dirent[]> {
    try {
      return await readdirConfined(realDir, await this.getRealRoots());
    } catch (e) {
      throw this.ioError(e, { path: realDir, real: realDir });
    }
  }

  private ioError(e: unknown, p: ResolvedPath): Error {
    if (e instanceof ConfinementError)
      return new SandboxError(
        `path ${p.path} (resolves to ${e.real}) is outside the session roots: ${this.roots.join(', ')}`,
      );
    const code = errnoCode(e);
    if (code === 'ENOENT') return new Error(`file not found: ${p.path}`);
    if (code === 'EISDIR') return new Error(`${p.path} is a directory (use list_files)`);
    if (code === 'ELOOP') return new SandboxError(`path ${p.path}: too many levels of symbolic links`);
    return e instanceof Error ? e : new Error(String(e));
  }

  /** Display form of an absolute path: relative to cwd when inside it. */
  display(path: string): string {
    return within(this.cwd, path) ? relative(this.cwd, path) || '.' : path;
  }
}

import { realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve, sep, dirname, basename } from 'node:path';

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

/**
 * Realpath of `p` even when it (or some of its parents) does not exist yet: the longest
 * existing ancestor is resolved and the missing tail appended, so a new file under a
 * symlinked directory is still judged by where it would really land.
 */
async function realpathLoose(p: string): Promise<string> {
  const tail: string[] = [];
  let cur = p;
  for (;;) {
    try {
      const r = await realpath(cur);
      return tail.length ? join(r, ...tail.reverse()) : r;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      const parent = dirname(cur);
      if (parent === cur) return p;
      tail.push(basename(cur));
      cur = parent;
    }
  }
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

  /** Display form of an absolute path: relative to cwd when inside it. */
  display(path: string): string {
    return within(this.cwd, path) ? relative(this.cwd, path) || '.' : path;
  }
}

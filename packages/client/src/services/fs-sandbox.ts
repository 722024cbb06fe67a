import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { AcpError } from '@acp-kit/protocol';
import {
  ConfinementError,
  isWithinRoot as isWithin,
  openConfinedForRead,
  writeConfined,
} from '@acp-kit/protocol/internal';

/** Parameters of `fs/read_text_file` the sandbox looks at (`sessionId` and `_meta` are ignored). */
export interface ReadTextFileParams {
  /** absolute path (ACP-ALL-RPC-07) */
  path: string;
  /** 1-based first line to return (ACP-V1-FS-03); `0`/omitted/`null` = from the start */
  line?: number | null;
  /** maximum number of lines to return; omitted/`null` = to the end */
  limit?: number | null;
}

/** Parameters of `fs/write_text_file` the sandbox looks at. */
export interface WriteTextFileParams {
  /** absolute path (ACP-ALL-RPC-07) */
  path: string;
  content: string;
}

/** Options of {@link FileSystemSandbox}. */
export interface FileSystemSandboxOptions {
  /**
   * Overlay for unsaved editor buffers (ACP-V1-FS-03: reads return the *current* text).
   * Called with the normalized absolute path after the sandbox check; return the buffer text
   * to serve it instead of the disk content, or `undefined` to read the disk. The overlay may
   * serve files that do not exist on disk yet.
   */
  readOverride?: (path: string) => string | undefined | Promise<string | undefined>;
  /** Called after a successful write with the normalized path (e.g. to reload an editor buffer). */
  onWrite?: (path: string, content: string) => void;
  /** Refuse files larger than this many bytes with -32602 (default 50 MiB): protects the client's memory. */
  maxReadBytes?: number;
}

const MAX_SYMLINK_HOPS = 40;

function errCode(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/**
 * Resolves every symlink of `p` like realpath(3), but also for paths that do not exist yet:
 * the missing tail is appended to the real path of the nearest existing ancestor, and a
 * dangling symlink is followed to its (missing) target so `link -> /outside/new` cannot be
 * used to create files outside the roots.
 */
async function resolveReal(p: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw Object.assign(new Error(`too many symbolic links: ${p}`), { code: 'ELOOP' });
  try {
    return await fsp.realpath(p);
  } catch (e) {
    const code = errCode(e);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  let st: import('node:fs').Stats | undefined;
  try {
    st = await fsp.lstat(p);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    const target = await fsp.readlink(p);
    return resolveReal(path.resolve(path.dirname(p), target), hops + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(await resolveReal(parent, hops + 1), path.basename(p));
}

function checkAbsolutePath(p: unknown, field = 'params.path'): string {
  if (typeof p !== 'string' || p.length === 0) {
    throw AcpError.invalidParams(`${field} must be a non-empty absolute path string`, { path: p });
  }
  if (p.includes('\0')) throw AcpError.invalidParams(`${field} must not contain NUL characters`, { path: p });
  if (!path.isAbsolute(p)) {
    throw AcpError.invalidParams(`${field} must be an absolute path (ACP-ALL-RPC-07), got ${JSON.stringify(p)}`, {
      path: p,
    });
  }
  return path.resolve(p);
}

function nameTooLong(field: string, p: string): AcpError {
  return AcpError.invalidParams(
    `${field}: must be a path the file system accepts; this one (${p.length} characters) is too long (ENAMETOOLONG)`,
    {
      path: p.length > 200 ? `${p.slice(0, 200)}…` : p,
    },
  );
}

function checkLineNumber(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw AcpError.invalidParams(`${field} must be a non-negative integer or null, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Splits text into lines that keep their terminators, so slices re-join byte-exactly. */
function splitLinesKeepEnds(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

/**
 * The client side of `fs/read_text_file` and `fs/write_text_file`, confined to a session's
 * root set `[cwd, ...additionalDirectories]` (ACP-V1-FS-05, ACP-ALL-SESS-04).
 *
 * Every path must be absolute; it is normalized (`..` removed) and then all symlinks are
 * resolved (for a file that does not exist yet: the real path of its nearest existing
 * ancestor, following dangling symlinks). The *resolved* path must lie inside the real path
 * of one of the roots, and the sandbox then operates on that resolved path. Refusals are
 * `AcpError` -32602 with a message such as
 * `Invalid params: params.path /etc/passwd is outside the session roots (/tmp/proj)`.
 *
 * Error mapping: missing file on read -> -32002 `Resource not found: /abs/path` (data `{path}`);
 * a directory or an oversized file -> -32602; other I/O failures -> -32603 naming the path and
 * the system error code.
 *
 * No check-then-open window: after the check, files are opened and the opened descriptor is
 * verified to lie inside the roots before anything is read or written; new files are created
 * inside a verified directory without following links (see `node/confined-fs.ts`, which also
 * states the weaker guarantee on platforms without `/proc/self/fd`). A path swapped for a
 * symlink to outside in between is refused with -32602, never read or written.
 */
export class FileSystemSandbox {
  /** The roots as given (absolute, normalized). */
  readonly roots: readonly string[];
  private readonly options: FileSystemSandboxOptions;
  private realRootsPromise: Promise<string[]> | undefined;

  /**
   * @param roots the session's root set, e.g. `[cwd, ...additionalDirectories]`; at least one,
   *   all absolute (throws `TypeError` otherwise: this is a programming error, not agent input).
   */
  constructor(roots: readonly string[], options: FileSystemSandboxOptions = {}) {
    if (!Array.isArray(roots) || roots.length === 0)
      throw new TypeError('FileSystemSandbox needs at least one root directory');
    for (const r of roots) {
      if (typeof r !== 'string' || !path.isAbsolute(r))
        throw new TypeError(`FileSystemSandbox root must be an absolute path: ${String(r)}`);
    }
    this.roots = roots.map((r) => path.resolve(r));
    this.options = options;
  }

  /** A sandbox for a session's `cwd` + `additionalDirectories` (ACP-ALL-SESS-03/04). */
  static forSession(
    session: { cwd: string; additionalDirectories?: readonly string[] | null },
    options?: FileSystemSandboxOptions,
  ): FileSystemSandbox {
    return new FileSystemSandbox([session.cwd, ...(session.additionalDirectories ?? [])], options);
  }

  private realRoots(): Promise<string[]> {
    // roots are resolved once: a root that is itself a symlink (macOS /tmp) must match real paths
    this.realRootsPromise ??= Promise.all(this.roots.map((r) => resolveReal(r).catch(() => r)));
    return this.realRootsPromise;
  }

  /**
   * Checks `p` (agent input) against the roots and returns the real path to operate on.
   * Throws `AcpError` -32602 when `p` is not absolute or resolves outside every root.
   * `field` names the JSON path in error messages.
   */
  async resolve(p: unknown, field = 'params.path'): Promise<string> {
    const normalized = checkAbsolutePath(p, field);
    let real: string;
    try {
      real = await resolveReal(normalized);
    } catch (e) {
      const code = errCode(e);
      if (code === 'ELOOP')
        throw AcpError.invalidParams(`${field} ${normalized} has too many levels of symbolic links`, {
          path: normalized,
        });
      if (code === 'ENAMETOOLONG') throw nameTooLong(field, normalized);
      throw AcpError.internal(`could not resolve ${normalized}: ${code ?? String(e)}`, { path: normalized });
    }
    const realRoots = await this.realRoots();
    if (!realRoots.some((root) => isWithin(root, real))) {
      const via = real === normalized ? '' : ` (resolves to ${real})`;
      throw AcpError.invalidParams(
        `${field} ${normalized}${via} is outside the session roots (${this.roots.join(', ')})`,
        {
          path: normalized,
          roots: [...this.roots],
        },
      );
    }
    return real;
  }

  /** True when `p` is absolute and resolves inside the roots (never throws). */
  async contains(p: string): Promise<boolean> {
    try {
      await this.resolve(p);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * `fs/read_text_file`: the file's current text (the overlay first, then the disk), optionally
   * the `limit` lines starting at 1-based `line` (ACP-V1-FS-03). Line terminators are kept.
   */
  async readTextFile(req: ReadTextFileParams): Promise<{ content: string }> {
    const normalized = checkAbsolutePath(req?.path);
    const line = checkLineNumber(req.line, 'params.line');
    const limit = checkLineNumber(req.limit, 'params.limit');
    const real = await this.resolve(normalized);

    let text = await this.options.readOverride?.(normalized);
    if (text === undefined) text = await this.readDisk(normalized, real);

    if (line === undefined && limit === undefined) return { content: text };
    const start = Math.max(1, line ?? 1) - 1;
    const lines = splitLinesKeepEnds(text);
    const end = limit === undefined ? lines.length : start + limit;
    return { content: lines.slice(start, end).join('') };
  }

  private async readDisk(normalized: string, real: string): Promise<string> {
    const maxBytes = this.options.maxReadBytes ?? 50 * 1024 * 1024;
    try {
      const fh = await openConfinedForRead(real, await this.realRoots());
      try {
        const st = await fh.stat();
        if (st.isDirectory())
          throw AcpError.invalidParams(`params.path ${normalized} is a directory, not a text file`, {
            path: normalized,
          });
        if (!st.isFile())
          throw AcpError.invalidParams(`params.path ${normalized} is not a regular file`, { path: normalized });
        if (st.size > maxBytes) {
          throw AcpError.invalidParams(
            `params.path ${normalized} is too large to read (${st.size} bytes > ${maxBytes}); use line/limit on a smaller file`,
            {
              path: normalized,
              size: st.size,
            },
          );
        }
        return await fh.readFile('utf8');
      } finally {
        await fh.close().catch(() => undefined);
      }
    } catch (e) {
      throw this.mapIoError(e, normalized, 'read');
    }
  }

  /**
   * `fs/write_text_file`: writes `content` (UTF-8), creating the file and any missing parent
   * directories inside the roots (ACP-V1-FS-04). Returns `{}`.
   */
  async writeTextFile(req: WriteTextFileParams): Promise<Record<string, never>> {
    const normalized = checkAbsolutePath(req?.path);
    if (typeof req.content !== 'string') {
      throw AcpError.invalidParams(
        `params.content must be a string, got ${req.content === null ? 'null' : typeof req.content}`,
      );
    }
    const real = await this.resolve(normalized);
    try {
      await writeConfined(real, req.content, await this.realRoots(), { mkdirs: true });
    } catch (e) {
      throw this.mapIoError(e, normalized, 'write');
    }
    this.options.onWrite?.(normalized, req.content);
    return {};
  }

  private mapIoError(e: unknown, p: string, op: 'read' | 'write'): AcpError {
    if (e instanceof AcpError) return e;
    if (e instanceof ConfinementError) {
      // a path swapped for a link between the check and the open: refused like any escape
      return AcpError.invalidParams(
        `params.path ${p} (resolves to ${e.real}) is outside the session roots (${this.roots.join(', ')})`,
        {
          path: p,
          roots: [...this.roots],
        },
      );
    }
    const code = errCode(e);
    if (code === 'ENAMETOOLONG') return nameTooLong('params.path', p);
    if (code === 'ELOOP')
      return AcpError.invalidParams(`params.path ${p} has too many levels of symbolic links`, { path: p });
    if (code === 'ENOENT' && op === 'read') return AcpError.resourceNotFound(p, { path: p });
    if (code === 'EISDIR')
      return AcpError.invalidParams(`params.path ${p} is a directory, not a text file`, { path: p });
    if (code === 'ENOTDIR')
      return AcpError.invalidParams(`params.path ${p}: a parent of this path is not a directory`, { path: p });
    if (code === 'EACCES' || code === 'EPERM')
      return AcpError.internal(`permission denied to ${op} ${p}`, { path: p, errno: code });
    return AcpError.internal(`could not ${op} ${p}: ${code ?? (e instanceof Error ? e.message : String(e))}`, {
      path: p,
    });
  }
}

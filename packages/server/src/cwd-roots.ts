import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { CwdCheck } from './guard.js';

/** Options of {@link cwdRootsCheck}. */
export interface CwdRootsOptions {
  /** Folders every tenant's sessions may be rooted in (anywhere inside them). Default: each tenant's workspace only. */
  roots?: readonly string[];
  /** A tenant's own workspace (created 0700 on first use), allowed when `roots` is not given. */
  workspaceOf?: (owner: string) => string;
  /**
   * The server's data folder (every tenant's stored sessions): never allowed as a session root nor
   * inside one, and nothing in it is allowed but the tenant's own workspace.
   */
  dataDir?: string;
}

/**
 * A {@link CwdCheck} for several tenants on one OS user: a session's roots must lie inside the
 * allowed roots (or the tenant's workspace), and never contain or enter the data folder, where the
 * other tenants' histories are: the built-in agent's file tools cannot leave a session's roots, so
 * this keeps them off other tenants' files. Symlinks are resolved before comparing.
 */
export function cwdRootsCheck(options: CwdRootsOptions): CwdCheck {
  const roots = options.roots?.map(real);
  const data = options.dataDir !== undefined ? real(options.dataDir) : undefined;
  return (owner, cwd) => {
    const path = real(cwd);
    let own = roots;
    if (!own) {
      if (!options.workspaceOf) return 'no session root is allowed on this server';
      const ws = options.workspaceOf(owner);
      try {
        mkdirSync(ws, { recursive: true, mode: 0o700 });
      } catch {
        // refused rather than thrown: this runs inside the connection's message handler
        return "must be inside your workspace, which this server cannot create (check the data folder's permissions)";
      }
      own = [real(ws)];
    }
    if (data !== undefined && inside(data, path))
      return "must not contain the server's data folder (every tenant's stored sessions)";
    if (data !== undefined && inside(path, data) && !own.some((r) => inside(path, r) && inside(r, data)))
      return "must not be inside the server's data folder (every tenant's stored sessions), except your workspace";
    if (!own.some((r) => inside(path, r)))
      return `must be inside ${roots ? `an allowed root (acp-kit serve --allowed-root): ${roots.join(', ')}` : `your workspace ${own[0]}`}`;
    return undefined;
  };
}

/** Whether `path` is `root` or inside it (both resolved). */
function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** `p` with symlinks resolved as far as it exists (the rest appended as given). */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = dirname(p);
    return parent === p ? p : join(real(parent), basename(p));
  }
}

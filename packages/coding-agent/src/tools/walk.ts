import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Directories never descended into unless named explicitly (noise for a coding agent). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules', '.hg', '.svn']);

/**
 * Translates a glob to a RegExp over `/`-separated relative paths: `**` any depth, `*` and `?`
 * within one segment, `{a,b}` alternatives, `[...]` classes. A pattern without `/` matches the
 * base name at any depth (like `.gitignore` patterns), so `*.ts` finds all TypeScript files.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) re += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        let cls = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        re += `[${cls}]`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  const anchored = glob.includes('/') ? `^${re}$` : `^(?:.*/)?${re}$`;
  return new RegExp(anchored);
}

export interface WalkEntry {
  /** absolute */
  path: string;
  /** relative to the walk root, `/`-separated */
  rel: string;
}

/**
 * Lists regular files under `root` (depth-first, sorted). Symlinks are not followed, so a link
 * cannot lead the walk outside the session roots.
 */
export async function* walkFiles(
  root: string,
  signal?: AbortSignal,
  /** lists one directory (default `fs.readdir`); the tools pass the sandbox's verified listing */
  list: (dir: string) => Promise<Dirent[]> = (dir) => readdir(dir, { withFileTypes: true }),
): AsyncGenerator<WalkEntry> {
  const stack: string[] = [root];
  for (;;) {
    if (signal?.aborted) return;
    const dir = stack.pop();
    if (dir === undefined) return;
    let entries;
    try {
      entries = await list(dir);
    } catch {
      continue; // unreadable directory: skip rather than fail the whole listing
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) subdirs.push(abs);
      } else if (e.isFile()) {
        yield { path: abs, rel: relative(root, abs).split(sep).join('/') };
      }
    }
    // the first subdirectory on top: the walk stays in sorted order
    stack.push(...subdirs.reverse());
  }
}

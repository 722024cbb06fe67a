import { createRequire } from 'node:module';
import type * as DiffPackage from 'diff';
import type { FileChange, ToolCallFileChanges, ToolCallTextDiff } from '@acp-kit/protocol';

/** Kind of one rendered diff line, for colouring. */
export type DiffLineKind = 'header' | 'hunk' | 'add' | 'remove' | 'context' | 'info';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/**
 * The `diff` package (19 module files, ~25 ms) is loaded at the first diff shown, not at start-up:
 * `run`, `chat` and `sessions show` start often and most turns carry no diff. Its CommonJS build
 * can be required synchronously, so rendering stays synchronous.
 */
let diffPackage: typeof DiffPackage | undefined;
function structuredPatch(
  ...args: Parameters<typeof DiffPackage.structuredPatch>
): ReturnType<typeof DiffPackage.structuredPatch> {
  if (!diffPackage) {
    const load: (id: 'diff') => typeof DiffPackage = createRequire(import.meta.url);
    diffPackage = load('diff');
  }
  return diffPackage.structuredPatch(...args);
}

/** Lines shown for at most this many changed lines per file before "… N more lines". */
const MAX_LINES = 200;

function displayPath(path: string, cwd: string | undefined): string {
  if (cwd && path.startsWith(cwd.endsWith('/') ? cwd : `${cwd}/`))
    return path.slice(cwd.length + (cwd.endsWith('/') ? 0 : 1));
  return path;
}

/** A unified diff of a v1-style whole-text edit (`oldText: null` = new file). */
export function textDiffLines(d: ToolCallTextDiff, cwd?: string): DiffLine[] {
  const name = displayPath(d.path, cwd);
  const lines: DiffLine[] = [{ kind: 'header', text: d.oldText === null ? `new file ${name}` : `modified ${name}` }];
  const patch = structuredPatch(name, name, d.oldText ?? '', d.newText, '', '', { context: 3 });
  let shown = 0;
  let hidden = 0;
  for (const h of patch.hunks) {
    if (shown >= MAX_LINES) {
      hidden += h.lines.length;
      continue;
    }
    // unified-diff convention: an empty range starts at the line before it
    const start = (n: number, count: number): number => (count === 0 ? Math.max(0, n - 1) : n);
    lines.push({
      kind: 'hunk',
      text: `@@ -${start(h.oldStart, h.oldLines)},${h.oldLines} +${start(h.newStart, h.newLines)},${h.newLines} @@`,
    });
    for (const l of h.lines) {
      if (shown >= MAX_LINES) {
        hidden++;
        continue;
      }
      if (l.startsWith('\\')) continue; // "\ No newline at end of file"
      lines.push({ kind: l[0] === '+' ? 'add' : l[0] === '-' ? 'remove' : 'context', text: l });
      shown++;
    }
  }
  if (patch.hunks.length === 0) lines.push({ kind: 'info', text: '(no textual change)' });
  if (hidden > 0) lines.push({ kind: 'info', text: `… ${hidden} more lines` });
  return lines;
}

function describeChange(c: FileChange, cwd: string | undefined): string {
  const path = typeof c.path === 'string' ? displayPath(c.path, cwd) : '?';
  if ((c.operation === 'move' || c.operation === 'copy') && 'oldPath' in c && typeof c.oldPath === 'string') {
    return `${c.operation} ${displayPath(c.oldPath, cwd)} -> ${path}`;
  }
  const type = typeof c.fileType === 'string' && c.fileType !== 'text' ? ` (${c.fileType})` : '';
  return `${c.operation} ${path}${type}`;
}

/** A v2 structured diff: the authoritative change list, then the patch text when there is one. */
export function fileChangesLines(d: ToolCallFileChanges, cwd?: string): DiffLine[] {
  const lines: DiffLine[] = (Array.isArray(d.changes) ? d.changes : []).map((c) => ({
    kind: 'header' as const,
    text: describeChange(c, cwd),
  }));
  const text = d.patch?.text;
  if (typeof text === 'string' && text.length > 0) {
    const all = text.replace(/\n$/, '').split('\n');
    for (const l of all.slice(0, MAX_LINES)) {
      if (
        l.startsWith('diff --git') ||
        l.startsWith('index ') ||
        l.startsWith('--- ') ||
        l.startsWith('+++ ') ||
        /^(new|deleted) file mode/.test(l)
      )
        continue;
      lines.push({
        kind: l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'remove' : 'context',
        text: l,
      });
    }
    if (all.length > MAX_LINES) lines.push({ kind: 'info', text: `… ${all.length - MAX_LINES} more lines` });
  }
  return lines;
}

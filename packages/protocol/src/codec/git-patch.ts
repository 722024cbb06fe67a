import { createRequire } from 'node:module';
import type * as Diff from 'diff';

// `diff` (19 modules) is loaded on the first patch, not at import: start-up of agents and clients
// that never send file changes (issue 8.4). Its CommonJS build keeps the load synchronous.
let diffLib: typeof Diff | undefined;
const loadDiff = (): typeof Diff => (diffLib ??= createRequire(import.meta.url)('diff') as typeof Diff);

/**
 * Git's C-style path quoting (`core.quotePath` default): a path with control characters, `"`,
 * `\` or non-ASCII bytes is written as `"..."` with escapes; anything else is left bare.
 * ACP-V2-DIFF-06 asks for "Git quoting" of the absolute paths.
 */
export function quoteGitPath(path: string): string {
  if (!/[\u0000-\u001f"\\\u007f-\uffff]/.test(path)) return path;
  let out = '"';
  for (const byte of Buffer.from(path, 'utf8')) {
    switch (byte) {
      case 0x07:
        out += '\\a';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0b:
        out += '\\v';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      default:
        out += byte < 0x20 || byte >= 0x7f ? `\\${byte.toString(8).padStart(3, '0')}` : String.fromCharCode(byte);
    }
  }
  return `${out}"`;
}

/** `@@ -l,s +l,s @@` the way Git writes it: `,1` omitted, a 0-line side starts one line earlier. */
function hunkHeader(oldStart: number, oldLines: number, newStart: number, newLines: number): string {
  const side = (start: number, lines: number) =>
    lines === 1 ? `${start}` : `${lines === 0 ? start - 1 : start},${lines}`;
  return `@@ -${side(oldStart, oldLines)} +${side(newStart, newLines)} @@`;
}

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

/** One hunk replacing every line: the fallback when the line diff takes too long. */
function wholeFileHunk(oldText: string, newText: string): string[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const out = [hunkHeader(1, a.lines.length, 1, b.lines.length)];
  for (const l of a.lines) out.push(`-${l}`);
  if (!a.finalNewline) out.push('\\ No newline at end of file');
  for (const l of b.lines) out.push(`+${l}`);
  if (!b.finalNewline) out.push('\\ No newline at end of file');
  return out;
}

/**
 * A `git_patch` (ACP-V2-DIFF-06) for one whole-text file edit — the v2 form of a v1
 * `{type: "diff", path, oldText, newText}`: a `diff --git <abs> <abs>` section with absolute
 * paths (no `a/`/`b/` prefixes), `new file mode 100644` and `/dev/null` for an added file
 * (`oldText === null`), then unified hunks with 3 lines of context. `git apply --unsafe-paths -p0`
 * applies it. Returns `null` when nothing changed (no patch can express a no-op edit; v2 allows
 * omitting `patch`, ACP-V2-DIFF-05).
 */
export function textDiffToGitPatch(path: string, oldText: string | null, newText: string): string | null {
  const isAdd = oldText === null;
  const before = oldText ?? '';
  if (!isAdd && before === newText) return null;
  const q = quoteGitPath(path);
  // Git appends a tab to ---/+++ names containing a space so that trailing spaces survive.
  const tab = q.includes(' ') ? '\t' : '';
  const out = [`diff --git ${q} ${q}`];
  if (isAdd) out.push('new file mode 100644');
  // Kept even for an empty new file: with absolute paths git needs them to know the name.
  out.push(`--- ${isAdd ? '/dev/null' : q + tab}`, `+++ ${q}${tab}`);
  if (before !== newText) {
    const patch = loadDiff().structuredPatch(path, path, before, newText, undefined, undefined, {
      context: 3,
      timeout: 250,
    });
    if (!patch) {
      out.push(...wholeFileHunk(before, newText));
    } else {
      for (const h of patch.hunks) {
        out.push(hunkHeader(h.oldStart, h.oldLines, h.newStart, h.newLines), ...h.lines);
      }
    }
  }
  return `${out.join('\n')}\n`;
}

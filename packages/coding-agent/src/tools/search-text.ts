import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { ToolCallLocation } from '@acp-kit/protocol';
import {
  asObject,
  optionalBool,
  optionalInt,
  optionalString,
  requireString,
  textContent,
  ToolInputError,
  type Tool,
} from '../tool.js';
import { MAX_FILE_BYTES } from '../workspace-fs.js';
import { globToRegExp, walkFiles, type WalkEntry } from './walk.js';
import { messageOf } from '@acp-kit/agent/internal';

export interface SearchTextInput {
  /** JavaScript regular expression */
  pattern: string;
  /** file or directory, relative to the project root (default `.`) */
  path?: string;
  /** glob filter on file paths */
  glob?: string;
  caseInsensitive?: boolean;
  limit?: number;
}

/** `search_text`: grep-like regex search over text files (no permission needed). */
export const searchTextTool: Tool<SearchTextInput> = {
  name: 'search_text',
  description:
    'Search text files for a regular expression (JavaScript syntax), like grep -rn. Returns "path:line: text" for each match, ' +
    'at most `limit` (default 100). Optionally restrict to a directory/file (`path`) and a glob (`glob`, e.g. "*.ts").',
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Regular expression' },
      path: { type: 'string', description: 'File or directory relative to the project root (default ".")' },
      glob: { type: 'string', description: 'Only files whose path matches this glob' },
      case_insensitive: { type: 'boolean' },
      limit: { type: 'integer', minimum: 1, maximum: 2000 },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  kind: 'search',
  mutates: false,
  parse(raw) {
    const o = asObject(raw, 'search_text');
    const pattern = requireString(o, 'pattern', 'search_text');
    const caseInsensitive = optionalBool(o, 'case_insensitive', 'search_text');
    try {
      new RegExp(pattern, caseInsensitive ? 'i' : '');
    } catch (e) {
      throw new ToolInputError(`search_text: "pattern" is not a valid regular expression: ${messageOf(e)}`);
    }
    return {
      pattern,
      path: optionalString(o, 'path', 'search_text'),
      glob: optionalString(o, 'glob', 'search_text'),
      caseInsensitive,
      limit: optionalInt(o, 'limit', 'search_text', 1, 2000),
    };
  },
  needsPermission: () => false,
  title: (i) => `Search for /${i.pattern}/${i.path ? ` in ${i.path}` : ''}`,
  async execute(input, ctx) {
    const base = await ctx.sandbox.resolve(input.path ?? '.');
    const st = await stat(base.real).catch(() => null);
    if (!st) throw new Error(`not found: ${base.path}`);
    const re = new RegExp(input.pattern, input.caseInsensitive ? 'i' : '');
    const globRe = input.glob ? globToRegExp(input.glob) : null;
    const limit = input.limit ?? 100;
    const lines: string[] = [];
    const locations: ToolCallLocation[] = [];
    let more = false;
    const files: AsyncIterable<WalkEntry> | WalkEntry[] = st.isDirectory()
      ? walkFiles(base.real, ctx.signal, (d) => ctx.sandbox.readdir(d))
      : [{ path: base.real, rel: relative(ctx.sandbox.cwd, base.path).split(sep).join('/') }];
    outer: for await (const f of files) {
      if (globRe && !globRe.test(f.rel)) continue;
      const shown = st.isDirectory()
        ? ctx.sandbox.display(`${base.path}${sep}${f.rel.split('/').join(sep)}`)
        : ctx.sandbox.display(base.path);
      const abs = st.isDirectory() ? `${base.path}${sep}${f.rel.split('/').join(sep)}` : base.path;
      // verified open: a file swapped for a link to outside after the walk saw it is skipped
      const buf = await ctx.sandbox.readFile({ path: abs, real: f.path }, MAX_FILE_BYTES).catch(() => null);
      if (!buf || buf.includes(0)) continue; // unreadable, too large or binary
      const textLines = buf.toString('utf8').split('\n');
      for (const [n, text] of textLines.entries()) {
        if (!re.test(text)) continue;
        if (lines.length >= limit) {
          more = true;
          break outer;
        }
        const l = text.length > 300 ? text.slice(0, 300) + '…' : text;
        lines.push(`${shown}:${n + 1}: ${l}`);
        if (locations.length < 50) locations.push({ path: abs, line: n + 1 });
      }
    }
    const summary =
      lines.length === 0
        ? `No matches for /${input.pattern}/.`
        : lines.join('\n') + (more ? `\n… (more than ${limit} matches)` : '');
    return {
      content: [textContent(summary)],
      result: summary,
      locations,
      rawOutput: { matches: lines.length, truncated: more },
    };
  },
};

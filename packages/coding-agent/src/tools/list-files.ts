import { stat } from 'node:fs/promises';
import { asObject, optionalInt, optionalString, textContent, type Tool } from '../tool.js';
import { globToRegExp, walkFiles } from './walk.js';

export interface ListFilesInput {
  /** directory, relative to the project root (default `.`) */
  path?: string;
  /** glob over paths relative to `path`, e.g. `**\/*.ts` or `*.md` */
  pattern?: string;
  limit?: number;
}

/** `list_files`: recursive file listing with an optional glob (no permission needed). */
export const listFilesTool: Tool<ListFilesInput> = {
  name: 'list_files',
  description:
    'List files recursively under a directory (default: the project root), optionally filtered by a glob such as "**/*.ts" or "*.md". ' +
    '.git and node_modules are skipped. Returns at most `limit` paths (default 200).',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Directory relative to the project root (default ".")' },
      pattern: { type: 'string', description: 'Glob filter, e.g. "src/**/*.ts" or "*.md"' },
      limit: { type: 'integer', minimum: 1, maximum: 5000, description: 'Maximum number of paths (default 200)' },
    },
    additionalProperties: false,
  },
  kind: 'search',
  mutates: false,
  parse(raw) {
    const o = asObject(raw ?? {}, 'list_files');
    return {
      path: optionalString(o, 'path', 'list_files'),
      pattern: optionalString(o, 'pattern', 'list_files'),
      limit: optionalInt(o, 'limit', 'list_files', 1, 5000),
    };
  },
  needsPermission: () => false,
  title: (i) =>
    `List files${i.path && i.path !== '.' ? ` in ${i.path}` : ''}${i.pattern ? ` matching ${i.pattern}` : ''}`,
  async execute(input, ctx) {
    const dir = await ctx.sandbox.resolve(input.path ?? '.');
    const st = await stat(dir.real).catch(() => null);
    if (!st) throw new Error(`directory not found: ${dir.path}`);
    if (!st.isDirectory()) throw new Error(`${dir.path} is not a directory`);
    const re = input.pattern ? globToRegExp(input.pattern) : null;
    const limit = input.limit ?? 200;
    const found: string[] = [];
    let more = false;
    for await (const e of walkFiles(dir.real, ctx.signal, (d) => ctx.sandbox.readdir(d))) {
      if (re && !re.test(e.rel)) continue;
      if (found.length >= limit) {
        more = true;
        break;
      }
      found.push(e.rel);
    }
    const listing = found.join('\n');
    const note = more ? `\n… (more than ${limit} files; narrow the pattern)` : '';
    const summary =
      found.length === 0
        ? `No files found in ${dir.path}${input.pattern ? ` matching ${input.pattern}` : ''}.`
        : listing + note;
    return {
      content: [textContent(summary)],
      result: summary,
      locations: [{ path: dir.path }],
      rawOutput: { count: found.length, truncated: more },
    };
  },
};

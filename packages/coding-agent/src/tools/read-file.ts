import { asObject, capText, optionalInt, requireString, textContent, type Tool } from '../tool.js';
import { resolve } from 'node:path';

export interface ReadFileInput {
  path: string;
  /** 1-based first line */
  offset?: number;
  /** maximum number of lines */
  limit?: number;
}

/** Most characters returned to the model by one read. */
const MAX_READ_CHARS = 100_000;

/** `read_file`: reads a text file in the session roots (no permission needed). */
export const readFileTool: Tool<ReadFileInput> = {
  name: 'read_file',
  description:
    'Read a text file. Paths are relative to the project root. Optionally read a line range with offset (1-based) and limit.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the project root' },
      offset: { type: 'integer', minimum: 1, description: 'First line to read (1-based)' },
      limit: { type: 'integer', minimum: 1, description: 'Maximum number of lines' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  kind: 'read',
  mutates: false,
  parse(raw) {
    const o = asObject(raw, 'read_file');
    return {
      path: requireString(o, 'path', 'read_file'),
      offset: optionalInt(o, 'offset', 'read_file', 1, Number.MAX_SAFE_INTEGER),
      limit: optionalInt(o, 'limit', 'read_file', 1, Number.MAX_SAFE_INTEGER),
    };
  },
  needsPermission: () => false,
  title: (i) => `Read ${i.path}${i.offset ? `:${i.offset}` : ''}`,
  locations: (i, ctx) => [{ path: resolve(ctx.sandbox.cwd, i.path), line: i.offset ?? 1 }],
  async execute(input, ctx) {
    const p = await ctx.sandbox.resolve(input.path);
    const all = await ctx.fs.readText(p, ctx.signal);
    let body = all;
    const first = input.offset ?? 1;
    if (input.offset !== undefined || input.limit !== undefined) {
      const lines = all.split('\n');
      body = lines.slice(first - 1, input.limit !== undefined ? first - 1 + input.limit : undefined).join('\n');
    }
    const { text, truncated } = capText(body, MAX_READ_CHARS);
    return {
      content: [textContent('```\n' + text + (text.endsWith('\n') ? '' : '\n') + '```')],
      result: text.length === 0 ? `${p.path} is empty` : text,
      locations: [{ path: p.path, line: first }],
      rawOutput: { path: p.path, characters: body.length, truncated },
    };
  },
};

import { resolve } from 'node:path';
import { asObject, optionalBool, requireString, type Tool, type ToolContext } from '../tool.js';
import type { ResolvedPath } from '../sandbox.js';

export interface EditFileInput {
  path: string;
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Computes the edit or throws an error the model can act on. */
async function planEdit(
  input: EditFileInput,
  ctx: ToolContext,
): Promise<{ p: ResolvedPath; oldText: string; newText: string; line: number }> {
  const p = await ctx.sandbox.resolve(input.path);
  const oldText = await ctx.fs.readTextIfExists(p, ctx.signal);
  if (oldText === null) throw new Error(`file not found: ${p.path} (use write_file to create it)`);
  const n = countOccurrences(oldText, input.oldString);
  if (n === 0) throw new Error(`old_string not found in ${p.path}`);
  if (n > 1 && !input.replaceAll) {
    throw new Error(
      `old_string occurs ${n} times in ${p.path}; add surrounding context to make it unique or set replace_all`,
    );
  }
  const newText = input.replaceAll
    ? oldText.split(input.oldString).join(input.newString)
    : oldText.replace(input.oldString, () => input.newString);
  const line = oldText.slice(0, oldText.indexOf(input.oldString)).split('\n').length;
  return { p, oldText, newText, line };
}

/** `edit_file`: replaces an exact string in a file; reported as a diff (asks in `ask` mode). */
export const editFileTool: Tool<EditFileInput> = {
  name: 'edit_file',
  description:
    'Edit a text file by replacing an exact string (old_string) with new_string. old_string must occur exactly once unless replace_all is true. ' +
    'Include enough surrounding context to make it unique.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the project root' },
      old_string: { type: 'string', description: 'Exact text to replace' },
      new_string: { type: 'string', description: 'Replacement text' },
      replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
    },
    required: ['path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  kind: 'edit',
  mutates: true,
  parse(raw) {
    const o = asObject(raw, 'edit_file');
    const oldString = requireString(o, 'old_string', 'edit_file');
    const newString = requireString(o, 'new_string', 'edit_file', { allowEmpty: true });
    return {
      path: requireString(o, 'path', 'edit_file'),
      oldString,
      newString,
      replaceAll: optionalBool(o, 'replace_all', 'edit_file'),
    };
  },
  needsPermission: () => true,
  title: (i) => `Edit ${i.path}`,
  locations: (i, ctx) => [{ path: resolve(ctx.sandbox.cwd, i.path) }],
  async preview(input, ctx) {
    const e = await planEdit(input, ctx);
    return [{ type: 'diff', path: e.p.path, oldText: e.oldText, newText: e.newText }];
  },
  async execute(input, ctx) {
    const e = await planEdit(input, ctx);
    await ctx.fs.writeText(e.p, e.newText, ctx.signal);
    return {
      content: [{ type: 'diff', path: e.p.path, oldText: e.oldText, newText: e.newText }],
      result: `Edited ${e.p.path} at line ${e.line}.`,
      locations: [{ path: e.p.path, line: e.line }],
      rawOutput: { path: e.p.path, line: e.line },
    };
  },
};

import { resolve } from 'node:path';
import type { AnyToolCallContent } from '@acp-kit/protocol';
import { asObject, requireString, type Tool } from '../tool.js';

export interface WriteFileInput {
  path: string;
  content: string;
}

/** `write_file`: creates or overwrites a text file; reported as a diff (asks in `ask` mode). */
export const writeFileTool: Tool<WriteFileInput> = {
  name: 'write_file',
  description:
    'Create a new text file or overwrite an existing one with the given content. Paths are relative to the project root. Prefer edit_file for small changes to existing files.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the project root' },
      content: { type: 'string', description: 'The complete new file content' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  kind: 'edit',
  mutates: true,
  parse(raw) {
    const o = asObject(raw, 'write_file');
    return {
      path: requireString(o, 'path', 'write_file'),
      content: requireString(o, 'content', 'write_file', { allowEmpty: true }),
    };
  },
  needsPermission: () => true,
  title: (i) => `Write ${i.path}`,
  locations: (i, ctx) => [{ path: resolve(ctx.sandbox.cwd, i.path), line: 1 }],
  async preview(input, ctx) {
    const p = await ctx.sandbox.resolve(input.path);
    const oldText = await ctx.fs.readTextIfExists(p, ctx.signal);
    const diff: AnyToolCallContent = { type: 'diff', path: p.path, oldText, newText: input.content };
    return [diff];
  },
  async execute(input, ctx) {
    const p = await ctx.sandbox.resolve(input.path);
    const oldText = await ctx.fs.readTextIfExists(p, ctx.signal);
    await ctx.fs.writeText(p, input.content, ctx.signal);
    const verb = oldText === null ? 'Created' : oldText === input.content ? 'Rewrote (unchanged)' : 'Updated';
    return {
      content: [{ type: 'diff', path: p.path, oldText, newText: input.content }],
      result: `${verb} ${p.path} (${Buffer.byteLength(input.content)} bytes).`,
      locations: [{ path: p.path, line: 1 }],
      rawOutput: { path: p.path, created: oldText === null, bytes: Buffer.byteLength(input.content) },
    };
  },
};

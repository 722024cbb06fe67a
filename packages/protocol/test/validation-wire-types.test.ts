/**
 * The generated wire types (src/protocol/wire) typecheck under strict, keep the discriminators
 * the generator would otherwise lose, and describe values the runtime validator accepts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getValidator } from '../src/validation/index.js';
import type { v1, v2 } from '../src/wire/index.js';

const root = resolve(import.meta.dirname, '../../..');

describe('generated wire types', () => {
  it('typed values are valid on the wire', () => {
    const chunk1: v1.SessionUpdate = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } };
    const call1: v1.SessionUpdate = { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read', status: 'pending' };
    const init1: v1.InitializeRequest = {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    };
    const prompt1: v1.PromptResponse = { stopReason: 'end_turn' };
    const chunk2: v2.SessionUpdate = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm',
      content: { type: 'text', text: 'hi' },
    };
    const init2: v2.InitializeRequest = { protocolVersion: 2, info: { name: 'ed', version: '1' } };
    expect(getValidator(1).update(chunk1)).toBeNull();
    expect(getValidator(1).update(call1)).toBeNull();
    expect(getValidator(1).params('initialize', init1)).toBeNull();
    expect(getValidator(1).result('session/prompt', prompt1)).toBeNull();
    expect(getValidator(2).update(chunk2)).toBeNull();
    expect(getValidator(2).params('initialize', init2)).toBeNull();
  });

  it('reject wrong shapes at compile time (tsc --strict on a usage file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-wire-types-'));
    try {
      const wire = join(root, 'packages/protocol/src/wire/index.js').replace(/\\/g, '/');
      writeFileSync(
        join(dir, 'usage.ts'),
        `import type { v1, v2 } from '${wire}';
// v1: the discriminator narrows to the branch's fields
export function title(u: v1.SessionUpdate): string | undefined {
  if (u.sessionUpdate === 'tool_call') return u.title;
  return undefined;
}
// @ts-expect-error v1 tool_call needs a title
export const a: v1.SessionUpdate = { sessionUpdate: 'tool_call', toolCallId: 't' };
// @ts-expect-error unknown v1 discriminator
export const b: v1.SessionUpdate = { sessionUpdate: 'tool_cal', toolCallId: 't', title: 'x' };
// @ts-expect-error v1 stop reasons are a closed list
export const c: v1.StopReason = 'done';
// @ts-expect-error v2 chunks need a messageId
export const d: v2.ContentChunk = { content: { type: 'text', text: 'x' } };
// @ts-expect-error v2 initialize needs info
export const e: v2.InitializeRequest = { protocolVersion: 2 };
export const f: v2.ToolCallStatus = 'some_future_status'; // open in v2
`,
      );
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          // lib without DOM: the wire types need none, and lib.dom.d.ts would be most of what tsc parses
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            lib: ['ES2022'],
            skipLibCheck: true,
            types: [],
          },
          files: ['usage.ts'],
        }),
      );
      const r = spawnSync(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
        { encoding: 'utf8' },
      );
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

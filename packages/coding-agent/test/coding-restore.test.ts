/**
 * Conversation restore: after an agent restart, `session/load` (v1) / `session/resume` (v2) give the
 * coding agent its stored history and the model continues the conversation the client sees.
 * Process-level over real pipes (needs `npm run build`), plus the history -> conversation mapping.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { conversationFromHistory } from '../src/restore.js';
import type { AnySessionUpdate } from '../../protocol/src/index.js';
import { initParams, promptTurn, startAgent, type Harness } from '../../../test/support/agent-harness.js';
import { tempDir } from '../../../test/support/temp.js';

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});

function start(dataDir: string, recordFile: string): Harness {
  const h = startAgent({
    fixture: 'coding-recording-agent.mjs',
    process: true,
    dataDir,
    env: { RECORD_FILE: recordFile },
  });
  harnesses.push(h);
  return h;
}
const requests = (file: string): any[][] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const text = (t: string) => [{ type: 'text', text: t }];
const userText = (m: any) => m.content.map((p: any) => p.text).join('');

describe.each([1, 2] as const)('coding agent restored in v%i', (version) => {
  it(`the first model request after ${version === 1 ? 'session/load' : 'session/resume'} in a new agent process contains the earlier turns`, async () => {
    const cwd = tempDir('coding-restore-');
    writeFileSync(join(cwd, 'README.md'), '# Restored project\nline two\n');
    const dataDir = tempDir('coding-restore-data-');
    const rec1 = join(dataDir, 'before.jsonl');
    const rec2 = join(dataDir, 'after.jsonl');

    const a = start(dataDir, rec1);
    await a.request('initialize', initParams(version));
    const { sessionId } = await a.request('session/new', { cwd, mcpServers: [] });
    expect((await promptTurn(a, sessionId, text('read README.md'))).idle?.stopReason ?? 'end_turn').toBe('end_turn');
    await promptTurn(a, sessionId, text('run echo from-the-shell'));
    await promptTurn(a, sessionId, text('/help'));
    await promptTurn(a, sessionId, text('hello there'));
    await a.close();
    // what the model knew at the end of the first process: its last request
    const before = requests(rec1).at(-1)!;
    expect(before.filter((m) => m.role === 'user').map(userText)).toEqual([
      'read README.md',
      'run echo from-the-shell',
      'hello there',
    ]);

    const b = start(dataDir, rec2);
    await b.request('initialize', initParams(version));
    // v2 without replayFrom: the client needs no replay, the model still gets its conversation
    await b.request(version === 1 ? 'session/load' : 'session/resume', { sessionId, cwd, mcpServers: [] });
    expect(requests(rec2)).toEqual([]);
    await promptTurn(b, sessionId, text('list files'));
    const after = requests(rec2)[0];
    expect(after.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    // everything the first process's model had seen comes back in order (tool call ids aside)
    expect(after.slice(0, before.length).map((m) => m.role)).toEqual(before.map((m) => m.role));
    expect(after.filter((m) => m.role === 'user').map(userText)).toEqual([
      'read README.md',
      'run echo from-the-shell',
      'hello there',
      'list files',
    ]);
    const calls = after
      .filter((m) => m.role === 'assistant')
      .flatMap((m) => m.content.filter((p: any) => p.type === 'tool_call'));
    expect(calls.map((c: any) => [c.toolName, c.input])).toEqual([
      ['read_file', { path: 'README.md' }],
      ['run_command', { command: 'echo from-the-shell' }],
    ]);
    const results = after.filter((m) => m.role === 'tool').flatMap((m) => m.results);
    expect(results.map((r: any) => r.toolCallId)).toEqual(calls.map((c: any) => c.toolCallId));
    expect(results[0].output).toContain('# Restored project');
    // v2: from the display terminal's output chunks; v1 (no client terminal): from the text content
    expect(results[1].output).toContain('from-the-shell');
    expect(results.every((r: any) => !r.isError)).toBe(true);
    // agent text the client saw is the model's own earlier output
    const said = after
      .filter((m) => m.role === 'assistant')
      .flatMap((m) => m.content.filter((p: any) => p.type === 'text').map((p: any) => p.text));
    const beforeSaid = before
      .filter((m) => m.role === 'assistant')
      .flatMap((m) => m.content.filter((p: any) => p.type === 'text').map((p: any) => p.text));
    expect(said.slice(0, beforeSaid.length)).toEqual(beforeSaid);
    expect(said.at(-1)).toContain("I can't do that yet");
  });
});

describe('conversationFromHistory', () => {
  const chunk = (messageId: string, t: string): AnySessionUpdate => ({
    sessionUpdate: 'agent_message_chunk',
    messageId,
    content: { type: 'text', text: t },
  });
  const user = (messageId: string, t: string): AnySessionUpdate => ({
    sessionUpdate: 'user_message',
    messageId,
    content: [{ type: 'text', text: t }],
  });
  const call = (id: string, patch: Record<string, unknown>): AnySessionUpdate =>
    ({ sessionUpdate: 'tool_call_update', toolCallId: id, ...patch }) as AnySessionUpdate;

  it('splits model responses at tool results, keeps several calls of one response together', () => {
    const conv = conversationFromHistory([
      user('u1', 'do two things'),
      chunk('m1', 'Doing '),
      chunk('m1', 'both.'),
      call('tool-1', { name: 'read_file', status: 'pending', rawInput: { path: 'a' } }),
      call('tool-2', { name: 'read_file', status: 'pending', rawInput: { path: 'b' } }),
      call('tool-1', { status: 'in_progress' }),
      call('tool-1', { status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'A' } }] }),
      call('tool-2', { status: 'in_progress' }),
      call('tool-2', { status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'no b' } }] }),
      // the next response starts with a call, no text
      call('tool-3.x', { name: 'list_files', status: 'pending', rawInput: {} }),
      call('tool-3.x', {
        status: 'completed',
        content: [{ type: 'diff', path: '/w/c', oldText: null, newText: 'x\ny' }],
      }),
      chunk('m2', 'Done.'),
    ]);
    expect(conv).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'do two things' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Doing both.' },
          { type: 'tool_call', toolCallId: 'tool-1', toolName: 'read_file', input: { path: 'a' } },
          { type: 'tool_call', toolCallId: 'tool-2', toolName: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'tool',
        results: [
          { toolCallId: 'tool-1', toolName: 'read_file', output: 'A' },
          { toolCallId: 'tool-2', toolName: 'read_file', output: 'no b', isError: true },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', toolCallId: 'tool-3_x', toolName: 'list_files', input: {} }],
      },
      {
        role: 'tool',
        results: [{ toolCallId: 'tool-3_x', toolName: 'list_files', output: 'Created /w/c (2 lines now).' }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
  });

  it('gives calls the agent never finished an error result, and drops slash-command turns (/clear drops everything before)', () => {
    const history = [
      user('u1', 'first'),
      chunk('m1', 'one'),
      user('u2', '/help'),
      chunk('m2', 'help text'),
      user('u3', 'run it'),
      call('tool-1', { name: 'run_command', status: 'pending', rawInput: { command: 'sleep 9' } }),
      call('tool-1', { status: 'in_progress' }),
    ];
    const command = (n: string) =>
      n === 'clear' ? ('clear' as const) : n === 'help' ? ('ignore' as const) : undefined;
    const conv = conversationFromHistory(history, { command });
    expect(conv.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    expect(JSON.stringify(conv)).not.toContain('help');
    const last = conv.at(-1) as any;
    expect(last.results[0]).toMatchObject({ toolCallId: 'tool-1', isError: true });
    expect(last.results[0].output).toMatch(/Not completed/);
    const cleared = conversationFromHistory(
      [...history, user('u4', '/clear'), chunk('m4', 'Conversation cleared.'), user('u5', 'fresh'), chunk('m5', 'ok')],
      { command },
    );
    expect(cleared).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'fresh' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
  });
});

/**
 * Wire -> neutral -> wire through the same version (what a proxy or inspector does): a v2
 * transcript must come out unchanged, a v1 transcript unchanged apart from minted message ids.
 */
import { describe, expect, it } from 'vitest';
import { codecFor } from '../src/codec/index.js';
import { getValidator } from '../src/validation/validator.js';

function relay(
  version: 1 | 2,
  transcript: object[],
  caps = { notices: true, compaction: true, booleanConfigOptions: true },
): object[] {
  const codec = codecFor(version);
  const dec = codec.createUpdateDecoder();
  const enc = codec.createUpdateEncoder({ clientCapabilities: caps });
  return transcript.flatMap((w) => dec.decode(structuredClone(w))).flatMap((u) => enc.encode(u as never));
}

const V2_TRANSCRIPT: object[] = [
  { sessionUpdate: 'state_update', state: 'running' },
  { sessionUpdate: 'user_message', messageId: 'u1', content: [{ type: 'text', text: 'Fix the bug' }] },
  { sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: { type: 'text', text: 'Looking…' } },
  {
    sessionUpdate: 'plan_update',
    plan: {
      type: 'items',
      planId: 'main',
      entries: [
        { content: 'Read', priority: 'high', status: 'in_progress' },
        { content: 'Skip', priority: '_p', status: 'cancelled' },
      ],
    },
  },
  {
    sessionUpdate: 'tool_call_update',
    toolCallId: 'c1',
    title: 'Edit a.ts',
    kind: 'edit',
    status: 'pending',
    capabilities: { cancel: {} },
  },
  {
    sessionUpdate: 'tool_call_content_chunk',
    toolCallId: 'c1',
    content: {
      type: 'diff',
      changes: [{ operation: 'modify', path: '/w/a.ts' }],
      patch: { format: 'git_patch', text: 'diff --git /w/a.ts /w/a.ts\n' },
    },
  },
  { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'paused', _meta: { k: null } },
  {
    sessionUpdate: 'terminal_update',
    terminalId: 'term',
    command: 'npm test',
    cwd: '/w',
    size: { cols: 80, rows: 24 },
  },
  { sessionUpdate: 'terminal_output_chunk', terminalId: 'term', data: 'b2s=' },
  { sessionUpdate: 'state_update', state: 'requires_action', background: [{ type: 'terminal', terminalId: 'term' }] },
  {
    sessionUpdate: 'available_commands_update',
    availableCommands: [
      { type: 'command', name: 'fix', description: 'Fix', input: { type: 'text', hint: 'what' } },
      { type: '_macro', name: 'm', description: 'M', steps: [] },
    ],
  },
  {
    sessionUpdate: 'config_option_update',
    configOptions: [
      {
        type: 'select',
        configId: 'mode',
        name: 'Mode',
        category: 'mode',
        currentValue: 'a',
        options: [{ value: 'a', name: 'A' }],
      },
      { type: '_slider', configId: 's', name: 'S', currentValue: 1 },
    ],
  },
  {
    sessionUpdate: 'agent_message',
    messageId: 'a1',
    content: [
      { type: 'text', text: 'Done' },
      { type: '_card', title: 'x' },
    ],
  },
  { sessionUpdate: 'agent_message', messageId: 'a1', content: null },
  { sessionUpdate: 'usage_update', used: 10, size: 100, cost: null },
  { sessionUpdate: 'notice', severity: 'warning', title: 'Slow' },
  { sessionUpdate: 'compaction_update', compactionId: 'k', status: 'failed', error: 'oops' },
  { sessionUpdate: '_acme_event', anything: [1, { b: 2 }] },
  { sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: { code: -32603, message: 'boom' } },
];

const V1_TRANSCRIPT: object[] = [
  { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: { type: 'text', text: 'Fix the bug' } },
  { sessionUpdate: 'plan', entries: [{ content: 'Read', priority: 'high', status: 'in_progress' }] },
  { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Looking' } },
  { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: '…' } },
  {
    sessionUpdate: 'tool_call',
    toolCallId: 'c1',
    title: 'Edit a.ts',
    kind: 'edit',
    status: 'pending',
    content: [],
    locations: [{ path: '/w/a.ts', line: 3 }],
  },
  {
    sessionUpdate: 'tool_call_update',
    toolCallId: 'c1',
    status: 'in_progress',
    content: [{ type: 'diff', path: '/w/a.ts', oldText: 'a', newText: 'b' }],
  },
  { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', rawOutput: { ok: true } },
  { sessionUpdate: 'current_mode_update', currentModeId: 'code' },
  {
    sessionUpdate: 'config_option_update',
    configOptions: [
      {
        type: 'select',
        id: 'model',
        name: 'Model',
        currentValue: 'm',
        options: [{ group: 'g', name: 'G', options: [{ value: 'm', name: 'M' }] }],
      },
      { type: 'boolean', id: 'fast', name: 'Fast', currentValue: true },
    ],
  },
  {
    sessionUpdate: 'available_commands_update',
    availableCommands: [{ name: 'fix', description: 'Fix', input: { hint: 'what' } }],
  },
  { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'Done' } },
  { sessionUpdate: 'session_info_update', title: 'Bug fix', updatedAt: null },
  { sessionUpdate: 'usage_update', used: 10, size: 100 },
  { sessionUpdate: 'notice', severity: 'info', title: 'FYI' },
  { sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: { type: 'text', text: 'sum' } },
  { sessionUpdate: '_acme_event', x: 1 },
];

describe('same-version relay through the neutral model', () => {
  it('v2: every update comes out as it went in', () => {
    const out = relay(2, V2_TRANSCRIPT);
    expect(out).toEqual(V2_TRANSCRIPT);
    for (const w of out) expect([null, 'unknown']).toContain(getValidator(2).update(w));
  });

  it('v1: every update comes out as it went in, id-less chunks gain a minted id; unknown kinds are not re-sent', () => {
    const out = relay(1, V1_TRANSCRIPT) as Array<Record<string, unknown>>;
    // the last entry (`_acme_event`) is decoded raw but not encoded: the v1 union is closed
    expect(out).toHaveLength(V1_TRANSCRIPT.length - 1);
    const minted = out[2].messageId as string;
    expect(minted).toMatch(/^v1-/);
    expect(out[3].messageId).toBe(minted);
    const expected = V1_TRANSCRIPT.slice(0, -1).map((w, i) => (i === 2 || i === 3 ? { ...w, messageId: minted } : w));
    expect(out).toEqual(expected);
    for (const w of out) expect(getValidator(1).update(w)).toBeNull();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AcpError,
  type AnyToolCallContent,
  type ConfigOption,
  type SessionUpdate,
  type ToolCallTextDiff,
} from '../src/index.js';
import { codecFor, textDiffToGitPatch, V2Codec } from '../src/codec/index.js';
import { getValidator } from '../src/validation/validator.js';
import { anyUpdate, updates } from '../../../test/support/codec-arbitraries.js';

const validator = getValidator(2);
const codec = codecFor(2);

/**
 * The documented v2 degradation of a neutral update (README.md), or the update itself.
 * `state.options`: the config options the encoder knows (for `current_mode_update`).
 */
function expectedV2(u: SessionUpdate, state: { options?: ConfigOption[] } = {}): SessionUpdate[] {
  const mapContent = (c: AnyToolCallContent): AnyToolCallContent => {
    if (c.type !== 'diff') return c;
    const d = c as ToolCallTextDiff;
    const out: Record<string, unknown> = {
      type: 'file_changes',
      changes: [{ operation: d.oldText === null ? 'add' : 'modify', path: d.path }],
    };
    const text = textDiffToGitPatch(d.path, d.oldText, d.newText);
    if (text !== null) out.patch = { format: 'git_patch', text };
    if (d._meta) out._meta = d._meta;
    return out as AnyToolCallContent;
  };
  switch (u.sessionUpdate) {
    case 'tool_call_update':
      return [Array.isArray(u.content) ? { ...u, content: u.content.map(mapContent) } : u];
    case 'tool_call_content_chunk':
      return [{ ...u, content: mapContent(u.content) }];
    case 'plan_removed':
      return [{ sessionUpdate: 'plan_update', plan: { type: 'items', planId: u.planId, entries: [] } }];
    case 'config_option_update':
      state.options = u.configOptions;
      return [u];
    case 'current_mode_update': {
      const i = state.options?.findIndex((o) => o.category === 'mode' && o.type === 'select') ?? -1;
      if (!state.options || i < 0) return [];
      state.options = state.options.map((o, j) =>
        j === i ? ({ ...o, currentValue: u.currentModeId } as ConfigOption) : o,
      );
      return [{ sessionUpdate: 'config_option_update', configOptions: state.options }];
    }
    default:
      return [u];
  }
}

describe('v2 session/update codec', () => {
  it('round-trips every update variant (model -> wire -> model), wire valid against the v2 schema', () => {
    for (const [name, arb] of Object.entries(updates)) {
      fc.assert(
        fc.property(arb as fc.Arbitrary<SessionUpdate>, (u) => {
          const enc = codec.createUpdateEncoder();
          const dec = codec.createUpdateDecoder();
          const wire = enc.encode(u);
          for (const w of wire) expect(validator.update(w), `${name}: ${JSON.stringify(w)}`).toBeNull();
          const back = wire.flatMap((w) => dec.decode(JSON.parse(JSON.stringify(w))));
          expect(back).toEqual(JSON.parse(JSON.stringify(expectedV2(u))));
        }),
        { numRuns: 60 },
      );
    }
  });

  it('round-trips arbitrary update sequences through one encoder/decoder pair', () => {
    fc.assert(
      fc.property(fc.array(anyUpdate, { maxLength: 12 }), (list) => {
        const enc = codec.createUpdateEncoder();
        const dec = codec.createUpdateDecoder();
        const back = list.flatMap((u) => enc.encode(u)).flatMap((w) => dec.decode(JSON.parse(JSON.stringify(w))));
        const state = {};
        expect(back).toEqual(JSON.parse(JSON.stringify(list.flatMap((u) => expectedV2(u, state)))));
      }),
      { numRuns: 150 },
    );
  });

  it('sends a neutral whole-text diff as changes + git_patch (ACP-V2-DIFF-01/06)', () => {
    const [wire] = codec.createUpdateEncoder().encode({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      content: [{ type: 'diff', path: '/repo/a.txt', oldText: 'one\ntwo\n', newText: 'one\nthree\n' }],
    });
    expect(wire).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      content: [
        {
          type: 'diff',
          changes: [{ operation: 'modify', path: '/repo/a.txt' }],
          patch: {
            format: 'git_patch',
            text: 'diff --git /repo/a.txt /repo/a.txt\n--- /repo/a.txt\n+++ /repo/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n',
          },
        },
      ],
    });
    const [added] = codec.createUpdateEncoder().encode({
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 't1',
      content: { type: 'diff', path: '/n.txt', oldText: null, newText: 'x\n' },
    });
    expect((added as { content: unknown }).content).toEqual({
      type: 'diff',
      changes: [{ operation: 'add', path: '/n.txt' }],
      patch: {
        format: 'git_patch',
        text: 'diff --git /n.txt /n.txt\nnew file mode 100644\n--- /dev/null\n+++ /n.txt\n@@ -0,0 +1 @@\n+x\n',
      },
    });
    const [same] = codec.createUpdateEncoder().encode({
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 't1',
      content: { type: 'diff', path: '/s', oldText: 'a', newText: 'a' },
    });
    expect((same as { content: unknown }).content).toEqual({
      type: 'diff',
      changes: [{ operation: 'modify', path: '/s' }],
    });
  });

  it('decodes a v2 diff into neutral file_changes, keeping unknown operations and formats', () => {
    const wire = {
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 't',
      content: {
        type: 'diff',
        changes: [
          { operation: 'move', oldPath: '/a', path: '/b' },
          { operation: '_chmod', path: '/c', mode: 755 },
        ],
        patch: { format: '_svn', text: 'x' },
      },
    };
    expect(codec.createUpdateDecoder().decode(wire)).toEqual([
      {
        sessionUpdate: 'tool_call_content_chunk',
        toolCallId: 't',
        content: {
          type: 'file_changes',
          changes: [
            { operation: 'move', oldPath: '/a', path: '/b' },
            { operation: '_chmod', path: '/c', mode: 755 },
          ],
          patch: { format: '_svn', text: 'x' },
        },
      },
    ]);
  });

  it('keeps unknown kinds, content types and fields untouched (ACP-V2-EXT-03)', () => {
    const dec = codec.createUpdateDecoder();
    const custom = { sessionUpdate: '_acme_progress', pct: 40, nested: { a: [1] } };
    expect(dec.decode(custom)).toEqual([custom]);
    const future = { sessionUpdate: 'subagent_update', sessionId: 's2', extra: true };
    expect(dec.decode(future)).toEqual([future]);
    const withUnknownContent = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm',
      content: { type: '_widget', payload: 1 },
      futureField: 'kept',
    };
    expect(dec.decode(withUnknownContent)).toEqual([withUnknownContent]);
    const toolUnknown = {
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      status: '_waiting',
      kind: '_deploy',
      content: [{ type: '_chart', points: [1, 2] }],
    };
    expect(dec.decode(toolUnknown)).toEqual([toolUnknown]);
    // encoding passes unknown kinds through as the same object
    expect(codec.createUpdateEncoder().encode(custom as never)[0]).toBe(custom);
  });

  it('rejects a known kind with an invalid body, naming the path (ACP-V2-EXT-04)', () => {
    const dec = codec.createUpdateDecoder();
    const cases: Array<[unknown, string]> = [
      [
        { sessionUpdate: 'tool_call_update', title: 'x' },
        "Invalid params: params.update: must have required property 'toolCallId'",
      ],
      [
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
        "Invalid params: params.update: must have required property 'messageId'",
      ],
      [
        { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 5 } },
        'Invalid params: params.update.content.text: must be string',
      ],
      [{ sessionUpdate: 'usage_update', used: -1, size: 3 }, 'Invalid params: params.update.used: must be >= 0'],
      [
        { sessionUpdate: 'plan_update', plan: { type: 'items', entries: [] } },
        "Invalid params: params.update.plan: must have required property 'planId'",
      ],
      [{ sessionUpdate: 7 }, 'Invalid params: params.update.sessionUpdate: must be string'],
      ['nope', 'Invalid params: params.update: must be object'],
    ];
    for (const [wire, message] of cases) {
      let err: unknown;
      try {
        dec.decode(wire);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(wire)).toBeInstanceOf(AcpError);
      expect((err as AcpError).code).toBe(-32602);
      expect((err as AcpError).message).toBe(message);
    }
  });

  it('accepts the older draft shapes state_change / stop_reason', () => {
    const dec = codec.createUpdateDecoder();
    expect(dec.decode({ sessionUpdate: 'state_change', state: 'idle', stop_reason: 'end_turn' })).toEqual([
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
    ]);
    expect(dec.decode({ sessionUpdate: 'state_update', state: 'idle', stop_reason: 'cancelled' })).toEqual([
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' },
    ]);
    expect(() => dec.decode({ sessionUpdate: 'state_change' })).toThrow(
      /params\.update: must have required property 'state'/,
    );
  });

  it('maps current_mode_update onto the mode config option when the options are known', () => {
    const modeOption = {
      type: 'select',
      configId: 'mode',
      name: 'Mode',
      category: 'mode',
      currentValue: 'ask',
      options: [
        { value: 'ask', name: 'Ask' },
        { value: 'code', name: 'Code' },
      ],
    } as const;
    const model = { type: 'boolean', configId: 'fast', name: 'Fast', currentValue: false } as const;
    const enc = codec.createUpdateEncoder({ configOptions: [model, modeOption] });
    const [wire] = enc.encode({ sessionUpdate: 'current_mode_update', currentModeId: 'code' });
    expect(wire).toEqual({
      sessionUpdate: 'config_option_update',
      configOptions: [model, { ...modeOption, currentValue: 'code' }],
    });
    expect(validator.update(wire)).toBeNull();
    // A later full update replaces what the encoder knows.
    enc.encode({ sessionUpdate: 'config_option_update', configOptions: [model] });
    expect(enc.encode({ sessionUpdate: 'current_mode_update', currentModeId: 'ask' })).toEqual([]);
  });

  it('accepts unstable plan_removed on input', () => {
    expect(codec.createUpdateDecoder().decode({ sessionUpdate: 'plan_removed', planId: 'p' })).toEqual([
      { sessionUpdate: 'plan_removed', planId: 'p' },
    ]);
    // malformed: a known neutral kind that is not stable v2 is ignored rather than kept raw
    expect(codec.createUpdateDecoder().decode({ sessionUpdate: 'plan_removed' })).toEqual([]);
  });

  it('untags commands and keeps unknown command/input types raw (ACP-V2-CMD-02)', () => {
    const wire = {
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { type: 'command', name: 'test', description: 'Run tests', input: { type: 'text', hint: 'file' } },
        { type: 'command', name: 'plain', description: 'No input', input: null },
        { type: 'command', name: 'pick', description: 'Pick', input: { type: '_choice', choices: ['a'] } },
        { type: '_macro', name: 'm', description: 'Macro', steps: 3 },
      ],
    };
    const [neutral] = codec.createUpdateDecoder().decode(wire);
    expect(neutral).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'test', description: 'Run tests', input: { hint: 'file' } },
        { name: 'plain', description: 'No input', input: null },
        { name: 'pick', description: 'Pick', input: { type: '_choice', choices: ['a'] } },
        { type: '_macro', name: 'm', description: 'Macro', steps: 3 },
      ],
    });
    expect(codec.createUpdateEncoder().encode(neutral as SessionUpdate)).toEqual([wire]);
  });

  it('without a validator, still maps (pure mapping logic)', () => {
    const raw = new V2Codec(null).createUpdateDecoder();
    expect(
      raw.decode({ sessionUpdate: 'tool_call_update', toolCallId: 't', content: [{ type: 'diff', changes: [] }] }),
    ).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 't', content: [{ type: 'file_changes', changes: [] }] },
    ]);
  });

  it('keeps the chunk path allocation-free: a chunk is encoded and decoded as the same object', () => {
    // speed is measured by `npm run bench` (core rows), not by a timed assertion here
    const enc = codec.createUpdateEncoder();
    const dec = codec.createUpdateDecoder();
    const u: SessionUpdate = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm1',
      content: { type: 'text', text: 'hello world' },
    };
    expect(enc.encode(u)[0]).toBe(u);
    const wire = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm1',
      content: { type: 'text', text: 'hello world' },
    };
    expect(dec.decode(wire)[0]).toBe(wire);
  });
});

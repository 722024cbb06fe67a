import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AcpError,
  V1_PLAN_ID,
  type AnySessionUpdate,
  type AnyToolCallContent,
  type ClientCapabilities,
  type SessionUpdate,
  type ToolCallFileChanges,
} from '../src/index.js';
import { codecFor, messageDelta, V1Codec } from '../src/codec/index.js';
import { getValidator } from '../src/validation/validator.js';
import { anyUpdate, updates } from '../../../test/support/codec-arbitraries.js';

const validator = getValidator(1);
const codec = codecFor(1);
const ALL_CAPS: ClientCapabilities = { notices: true, compaction: true, booleanConfigOptions: true };

const V1_KINDS = new Set([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
]);
const v1Status = (s: string) =>
  ['pending', 'in_progress', 'completed', 'failed'].includes(s) ? s : s === 'cancelled' ? 'failed' : 'in_progress';
const chunkKind = (k: string) => `${k}_chunk`;

function v1ToolContent(c: AnyToolCallContent): AnyToolCallContent {
  if (c.type !== 'file_changes') return c;
  const fc = c as ToolCallFileChanges;
  const text = (fc.patch ? [] : []).concat(['Changed files:']);
  for (const ch of fc.changes) {
    const x = ch as { operation: string; path: string; oldPath?: string };
    text.push(
      x.oldPath !== undefined && (x.operation === 'move' || x.operation === 'copy')
        ? `- ${x.operation} \`${x.oldPath}\` → \`${x.path}\``
        : `- ${x.operation} \`${x.path}\``,
    );
  }
  if (fc.patch) text.push('', '```diff', fc.patch.text.replace(/\n$/, ''), '```');
  return { type: 'content', content: { type: 'text', text: text.join('\n') } };
}

/** What a fresh v1 encoder + decoder pair turns one neutral update into (README.md). */
function expectedV1(u: SessionUpdate, caps: ClientCapabilities): unknown[] {
  switch (u.sessionUpdate) {
    case 'user_message':
    case 'agent_message':
    case 'agent_thought': {
      if (!u.content) return [];
      return u.content.map((content, i) => {
        const out: Record<string, unknown> = {
          sessionUpdate: chunkKind(u.sessionUpdate),
          messageId: u.messageId,
          content,
        };
        if (i === 0 && u._meta) out._meta = u._meta;
        return out;
      });
    }
    case 'tool_call_update': {
      const out: Record<string, unknown> = {
        sessionUpdate: 'tool_call_update',
        toolCallId: u.toolCallId,
        title: typeof u.title === 'string' ? u.title : typeof u.name === 'string' ? u.name : 'Tool call',
        kind: u.kind ? (V1_KINDS.has(u.kind) ? u.kind : 'other') : 'other',
        status: u.status ? v1Status(u.status) : 'pending',
        content: (u.content ?? []).map(v1ToolContent),
        locations: u.locations ?? [],
      };
      if (typeof u.name === 'string') out.name = u.name;
      if (u.rawInput !== undefined && u.rawInput !== null) out.rawInput = u.rawInput;
      if (u.rawOutput !== undefined && u.rawOutput !== null) out.rawOutput = u.rawOutput;
      if (u._meta) out._meta = u._meta;
      return [out];
    }
    case 'tool_call_content_chunk':
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: u.toolCallId,
          title: 'Tool call',
          kind: 'other',
          status: 'pending',
          content: [v1ToolContent(u.content)],
          locations: [],
        },
      ];
    case 'plan_update': {
      const entries =
        u.plan.type === 'items' ? (u.plan.entries as Array<{ content: string; priority: string; status: string }>) : [];
      return [
        {
          sessionUpdate: 'plan_update',
          plan: {
            type: 'items',
            planId: V1_PLAN_ID,
            entries: entries
              .filter((e) => e.status !== 'cancelled')
              .map((e) => ({
                ...e,
                priority: ['high', 'medium', 'low'].includes(e.priority) ? e.priority : 'medium',
                status: ['pending', 'in_progress', 'completed'].includes(e.status) ? e.status : 'pending',
              })),
          },
        },
      ];
    }
    case 'available_commands_update':
      return [
        {
          ...u,
          availableCommands: u.availableCommands.map((c) =>
            c.input ? c : { name: c.name, description: c.description },
          ),
        },
      ];
    case 'config_option_update':
      return [
        {
          ...u,
          configOptions: u.configOptions.filter(
            (o) => o.type === 'select' || (o.type === 'boolean' && caps.booleanConfigOptions),
          ),
        },
      ];
    case 'notice':
      return caps.notices ? [u] : [];
    case 'compaction_update':
    case 'compaction_summary_chunk':
      return caps.compaction ? [u] : [];
    case 'state_update':
    case 'terminal_update':
    case 'terminal_output_chunk':
    case 'plan_removed': // nothing to remove in a fresh session
      return [];
    default:
      return [u];
  }
}

function roundTrip(list: SessionUpdate[], caps: ClientCapabilities): { wire: object[]; back: AnySessionUpdate[] } {
  const enc = codec.createUpdateEncoder({ clientCapabilities: caps });
  const dec = codec.createUpdateDecoder();
  const wire = list.flatMap((u) => enc.encode(u));
  const back = wire.flatMap((w) => dec.decode(JSON.parse(JSON.stringify(w))));
  return { wire, back };
}

describe('v1 session/update codec', () => {
  it('round-trips every update variant with the documented degradation; wire valid against the v1 schema', () => {
    for (const caps of [ALL_CAPS, {}]) {
      for (const [name, arb] of Object.entries(updates)) {
        fc.assert(
          fc.property(arb as fc.Arbitrary<SessionUpdate>, (u) => {
            const { wire, back } = roundTrip([u], caps);
            for (const w of wire) expect(validator.update(w), `${name}: ${JSON.stringify(w)}`).toBeNull();
            expect(back).toEqual(JSON.parse(JSON.stringify(expectedV1(u, caps))));
          }),
          { numRuns: 50 },
        );
      }
    }
  });

  it('encodes any update sequence into schema-valid v1 updates that decode without error', () => {
    fc.assert(
      fc.property(fc.array(anyUpdate, { maxLength: 15 }), fc.constantFrom(ALL_CAPS, {}), (list, caps) => {
        const { wire, back } = roundTrip(list, caps);
        for (const w of wire) expect(validator.update(w), JSON.stringify(w)).toBeNull();
        expect(back.length).toBe(wire.length);
        // the v1 stream never carries what v1 cannot express
        const kinds = new Set(wire.map((w) => (w as { sessionUpdate: string }).sessionUpdate));
        for (const k of [
          'state_update',
          'terminal_update',
          'terminal_output_chunk',
          'plan_update',
          'plan_removed',
          'tool_call_content_chunk',
          'agent_message',
          'user_message',
          'agent_thought',
        ]) {
          expect(kinds.has(k)).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });

  describe('tool calls', () => {
    it('creates with tool_call, then patches with tool_call_update (ACP-V1-TOOL-01/03)', () => {
      const enc = codec.createUpdateEncoder();
      expect(
        enc.encode({ sessionUpdate: 'tool_call_update', toolCallId: 't', name: 'read_file', status: 'in_progress' }),
      ).toEqual([
        { sessionUpdate: 'tool_call', toolCallId: 't', name: 'read_file', status: 'in_progress', title: 'read_file' },
      ]);
      expect(enc.encode({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'paused' })).toEqual([
        { sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress' },
      ]);
      expect(
        enc.encode({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'cancelled', kind: '_deploy' }),
      ).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'failed', kind: 'other' }]);
      // v2 resets: null kind/status -> other/pending; null arrays -> []
      expect(
        enc.encode({
          sessionUpdate: 'tool_call_update',
          toolCallId: 't',
          kind: null,
          status: null,
          locations: null,
          content: null,
        }),
      ).toEqual([
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: 't',
          kind: 'other',
          status: 'pending',
          content: [],
          locations: [],
        },
      ]);
      // what v1 cannot clear is dropped; nothing left -> nothing sent
      expect(
        enc.encode({
          sessionUpdate: 'tool_call_update',
          toolCallId: 't',
          title: null,
          rawInput: null,
          capabilities: { cancel: {} },
        }),
      ).toEqual([]);
      const title = { sessionUpdate: 'tool_call', toolCallId: 'u', title: 'Tool call' };
      expect(enc.encode({ sessionUpdate: 'tool_call_update', toolCallId: 'u' })).toEqual([title]);
    });

    it('re-sends the whole accumulated content list for content chunks', () => {
      const enc = codec.createUpdateEncoder();
      const a = { type: 'content', content: { type: 'text', text: 'a' } } as const;
      const b = { type: 'content', content: { type: 'text', text: 'b' } } as const;
      const c = { type: 'terminal', terminalId: 'term-1' } as const;
      expect(enc.encode({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 't', content: a })).toEqual([
        { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Tool call', content: [a] },
      ]);
      expect(enc.encode({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 't', content: b })).toEqual([
        { sessionUpdate: 'tool_call_update', toolCallId: 't', content: [a, b] },
      ]);
      // a content replacement resets the list; later chunks append to the replacement (ACP-V2-TOOL-04)
      expect(enc.encode({ sessionUpdate: 'tool_call_update', toolCallId: 't', content: [c] })).toEqual([
        { sessionUpdate: 'tool_call_update', toolCallId: 't', content: [c] },
      ]);
      expect(enc.encode({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 't', content: a })).toEqual([
        { sessionUpdate: 'tool_call_update', toolCallId: 't', content: [c, a] },
      ]);
    });

    it('sends structured file changes as a text summary with the patch', () => {
      const [w] = codec.createUpdateEncoder().encode({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't',
        title: 'Edit',
        content: [
          {
            type: 'file_changes',
            changes: [
              { operation: 'move', oldPath: '/a.ts', path: '/b.ts' },
              { operation: 'modify', path: '/c.ts' },
            ],
            patch: { format: 'git_patch', text: 'diff --git /c.ts /c.ts\n' },
          },
        ],
      });
      expect((w as { content: unknown }).content).toEqual([
        {
          type: 'content',
          content: {
            type: 'text',
            text: 'Changed files:\n- move `/a.ts` → `/b.ts`\n- modify `/c.ts`\n\n```diff\ndiff --git /c.ts /c.ts\n```',
          },
        },
      ]);
      expect(validator.update(w)).toBeNull();
    });

    it('decodes tool_call with defaults (replacement) and drops tool_call_update nulls (v1 null = unchanged)', () => {
      const dec = codec.createUpdateDecoder();
      expect(dec.decode({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read' })).toEqual([
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: 't',
          title: 'Read',
          kind: 'other',
          status: 'pending',
          content: [],
          locations: [],
        },
      ]);
      expect(
        dec.decode({
          sessionUpdate: 'tool_call_update',
          toolCallId: 't',
          title: null,
          status: 'completed',
          content: null,
          rawOutput: { ok: true },
        }),
      ).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed', rawOutput: { ok: true } }]);
      expect(
        dec.decode({
          sessionUpdate: 'tool_call',
          toolCallId: 'd',
          title: 'Write',
          kind: 'edit',
          content: [{ type: 'diff', path: '/x', oldText: null, newText: 'hi' }],
        }),
      ).toEqual([
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: 'd',
          title: 'Write',
          kind: 'edit',
          status: 'pending',
          content: [{ type: 'diff', path: '/x', oldText: null, newText: 'hi' }],
          locations: [],
        },
      ]);
    });
  });

  describe('plans', () => {
    it('merges all plans into the single v1 plan; plan_removed drops one (ACP-V1-PLAN-03)', () => {
      const enc = codec.createUpdateEncoder();
      const e = (content: string, status = 'pending', priority = 'high') => ({ content, priority, status });
      expect(
        enc.encode({
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: 'a', entries: [e('a1'), e('a2', 'cancelled')] },
        }),
      ).toEqual([{ sessionUpdate: 'plan', entries: [e('a1')] }]);
      expect(
        enc.encode({
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: 'b', entries: [e('b1', '_blocked', '_urgent')] },
        }),
      ).toEqual([{ sessionUpdate: 'plan', entries: [e('a1'), e('b1', 'pending', 'medium')] }]);
      expect(
        enc.encode({
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: 'a', entries: [e('a1', 'completed')] },
        }),
      ).toEqual([{ sessionUpdate: 'plan', entries: [e('a1', 'completed'), e('b1', 'pending', 'medium')] }]);
      expect(enc.encode({ sessionUpdate: 'plan_removed', planId: 'a' })).toEqual([
        { sessionUpdate: 'plan', entries: [e('b1', 'pending', 'medium')] },
      ]);
      expect(enc.encode({ sessionUpdate: 'plan_removed', planId: 'zzz' })).toEqual([]);
      expect(
        enc.encode({ sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'b', content: '# x' } }),
      ).toEqual([{ sessionUpdate: 'plan', entries: [] }]);
    });

    it('decodes plan as plan_update of the v1 plan id', () => {
      expect(
        codec
          .createUpdateDecoder()
          .decode({ sessionUpdate: 'plan', entries: [{ content: 'x', priority: 'low', status: 'pending' }] }),
      ).toEqual([
        {
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: 'main', entries: [{ content: 'x', priority: 'low', status: 'pending' }] },
        },
      ]);
    });
  });

  describe('messages', () => {
    const text = (t: string) => ({ type: 'text' as const, text: t });
    it('turns a first whole-message upsert into chunks with its messageId', () => {
      const enc = codec.createUpdateEncoder();
      const img = { type: 'image' as const, data: 'AA==', mimeType: 'image/png' };
      expect(enc.encode({ sessionUpdate: 'user_message', messageId: 'u1', content: [text('hi'), img] })).toEqual([
        { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: text('hi') },
        { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: img },
      ]);
    });

    it('sends only the new tail when an upsert extends what was shown (snapshot streaming)', () => {
      const enc = codec.createUpdateEncoder();
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('Hel')] })).toEqual([
        { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('Hel') },
      ]);
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('Hello')] })).toEqual([
        { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('lo') },
      ]);
      expect(enc.encode({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text(', wor') })).toHaveLength(
        1,
      );
      expect(
        enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('Hello, world'), text('!')] }),
      ).toEqual([{ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('ld!') }]);
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('Hello, world!')] })).toEqual(
        [],
      ); // unchanged
    });

    it('drops replacements and clears of an already-sent message (not expressible in v1)', () => {
      const enc = codec.createUpdateEncoder();
      enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('draft')] });
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('final')] })).toEqual([]);
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: null })).toEqual([]);
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', _meta: { x: 1 } })).toEqual([]);
      // an older message (no longer the latest of its role) cannot be extended either
      enc.encode({ sessionUpdate: 'agent_message_chunk', messageId: 'n', content: text('next') });
      expect(enc.encode({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('draft+')] })).toEqual([]);
      // ids are per role (ACP-V2-MSG-08): a thought with the same id is a new message
      expect(enc.encode({ sessionUpdate: 'agent_thought', messageId: 'm', content: [text('hmm')] })).toEqual([
        { sessionUpdate: 'agent_thought_chunk', messageId: 'm', content: text('hmm') },
      ]);
    });

    it('computes deltas over merged text runs', () => {
      expect(messageDelta([text('a'), text('b')], [text('abc')])).toEqual([text('c')]);
      expect(messageDelta([text('abc')], [text('ab')])).toBeNull();
      expect(messageDelta([], [text('x')])).toEqual([text('x')]);
      expect(
        messageDelta(
          [text('a'), { type: 'image', data: 'AA==', mimeType: 'image/png' }],
          [text('a'), { type: 'image', data: 'AA==', mimeType: 'image/png' }, text('z')],
        ),
      ).toEqual([text('z')]);
    });

    it('mints ids for chunks without messageId: same id while the run continues (ACP-V1-MSG-01/02)', () => {
      const dec = codec.createUpdateDecoder();
      const chunk = (kind: string, t: string, messageId?: string | null) => ({
        sessionUpdate: kind,
        content: text(t),
        ...(messageId !== undefined ? { messageId } : {}),
      });
      const ids = (list: AnySessionUpdate[]) => list.map((u) => (u as { messageId: string }).messageId);
      const a = ids(dec.decode(chunk('agent_message_chunk', 'a')));
      const b = ids(dec.decode(chunk('agent_message_chunk', 'b', null)));
      expect(a[0]).toMatch(/^v1-/);
      expect(b).toEqual(a); // same run
      const t = ids(dec.decode(chunk('agent_thought_chunk', 't'))); // role change
      expect(t[0]).not.toBe(a[0]);
      const c = ids(dec.decode(chunk('agent_message_chunk', 'c')));
      expect(c[0]).not.toBe(a[0]);
      dec.decode({ sessionUpdate: 'tool_call', toolCallId: 'x', title: 'X' }); // a new tool call ends the run
      const d = ids(dec.decode(chunk('agent_message_chunk', 'd')));
      expect(d[0]).not.toBe(c[0]);
      // explicit ids are kept, and a following id-less chunk of the same role continues that message
      expect(ids(dec.decode(chunk('agent_message_chunk', 'e', 'given')))).toEqual(['given']);
      expect(ids(dec.decode(chunk('agent_message_chunk', 'f')))).toEqual(['given']);
      expect(new Set([a[0], t[0], c[0], d[0]]).size).toBe(4);
      // two decoders (e.g. before and after session/load) never mint the same id
      const other = ids(codec.createUpdateDecoder().decode(chunk('agent_message_chunk', 'a')));
      expect(other[0]).not.toBe(a[0]);
    });
  });

  describe('capability gating and v1-less kinds', () => {
    it('sends notices and compactions only when the client advertised them', () => {
      const notice: SessionUpdate = { sessionUpdate: 'notice', severity: 'info', title: 'Heads up' };
      const comp: SessionUpdate = {
        sessionUpdate: 'compaction_update',
        compactionId: 'c',
        status: 'completed',
        error: null,
      };
      expect(codec.createUpdateEncoder().encode(notice)).toEqual([]);
      expect(codec.createUpdateEncoder({ clientCapabilities: { notices: true } }).encode(notice)).toEqual([notice]);
      expect(codec.createUpdateEncoder({ clientCapabilities: { notices: true } }).encode(comp)).toEqual([]);
      expect(codec.createUpdateEncoder({ clientCapabilities: { compaction: true } }).encode(comp)).toEqual([comp]);
    });

    it('drops boolean config options unless advertised (ACP-V1-CFG-01) and renames configId/groupId', () => {
      const u: SessionUpdate = {
        sessionUpdate: 'config_option_update',
        configOptions: [
          {
            type: 'select',
            configId: 'model',
            name: 'Model',
            currentValue: 'a',
            options: [{ groupId: 'g', name: 'G', options: [{ value: 'a', name: 'A' }] }],
          },
          { type: 'boolean', configId: 'fast', name: 'Fast', currentValue: true },
          { type: '_slider', configId: 'temp', name: 'Temp', currentValue: 0.3 },
        ],
      };
      expect(codec.createUpdateEncoder().encode(u)).toEqual([
        {
          sessionUpdate: 'config_option_update',
          configOptions: [
            {
              type: 'select',
              id: 'model',
              name: 'Model',
              currentValue: 'a',
              options: [{ group: 'g', name: 'G', options: [{ value: 'a', name: 'A' }] }],
            },
          ],
        },
      ]);
      expect(
        (
          codec.createUpdateEncoder({ clientCapabilities: { booleanConfigOptions: true } }).encode(u)[0] as {
            configOptions: unknown[];
          }
        ).configOptions,
      ).toHaveLength(2);
    });

    it('sends nothing for state, terminal and terminal output updates', () => {
      const enc = codec.createUpdateEncoder({ clientCapabilities: ALL_CAPS });
      expect(enc.encode({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' })).toEqual([]);
      expect(enc.encode({ sessionUpdate: 'terminal_update', terminalId: 't', command: 'ls' })).toEqual([]);
      expect(enc.encode({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: 'aGk=' })).toEqual([]);
    });

    it('drops unknown and extension update kinds: the v1 union is closed (schema wins on output)', () => {
      const enc = codec.createUpdateEncoder({ clientCapabilities: ALL_CAPS });
      const custom = { sessionUpdate: '_acme_progress', percent: 50, _meta: { m: 1 } };
      const future = { sessionUpdate: 'subagent_update', subagentId: 'a' };
      // what passing them through would send is indeed invalid v1
      expect(validator.update(custom)).not.toBeNull();
      expect(validator.update(future)).not.toBeNull();
      expect(enc.encode(custom as never)).toEqual([]);
      expect(enc.encode(future as never)).toEqual([]);
      // known kinds around them are unaffected
      expect(enc.encode({ sessionUpdate: 'usage_update', used: 1, size: 10 })).toEqual([
        { sessionUpdate: 'usage_update', used: 1, size: 10 },
      ]);
    });

    it('degrades v2-only content: unknown blocks dropped, resource_link icons removed', () => {
      const enc = codec.createUpdateEncoder();
      expect(
        enc.encode({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: '_widget', x: 1 } }),
      ).toEqual([]);
      const [w] = enc.encode({
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm',
        content: { type: 'resource_link', uri: 'file:///a', name: 'a', icons: [{ src: 'https://x/i.png' }] },
      });
      expect(w).toEqual({
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm',
        content: { type: 'resource_link', uri: 'file:///a', name: 'a' },
      });
    });

    it('maps v2 tagged-shape commands to v1 {name, description, input: {hint}}', () => {
      const [w] = codec.createUpdateEncoder().encode({
        sessionUpdate: 'available_commands_update',
        availableCommands: [
          { name: 'test', description: 'Run', input: { hint: 'path' } },
          { name: 'pick', description: 'Pick', input: { type: '_choice', choices: [] } as never },
          { type: '_macro', name: 'm', description: 'Macro' } as never,
        ],
      });
      expect(w).toEqual({
        sessionUpdate: 'available_commands_update',
        availableCommands: [
          { name: 'test', description: 'Run', input: { hint: 'path' } },
          { name: 'pick', description: 'Pick' },
          { name: 'm', description: 'Macro' },
        ],
      });
    });
  });

  describe('decoding leniency and errors', () => {
    it('keeps unknown kinds raw and never throws on them', () => {
      const dec = codec.createUpdateDecoder();
      const custom = { sessionUpdate: '_acme', a: 1 };
      expect(dec.decode(custom)).toEqual([custom]);
      const future = { sessionUpdate: 'subagent_update', sessionId: 's' };
      expect(dec.decode(future)).toEqual([future]);
      // unstable v1 plan variants have the neutral shape
      const pu = { sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'p', content: '# x' } };
      expect(dec.decode(pu)).toEqual([pu]);
      expect(dec.decode({ sessionUpdate: 'plan_removed', planId: 'p' })).toEqual([
        { sessionUpdate: 'plan_removed', planId: 'p' },
      ]);
      // v2-only kinds on a v1 connection are ignored
      expect(dec.decode({ sessionUpdate: 'state_update', state: 'idle' })).toEqual([]);
    });

    it('rejects a known kind with an invalid body, naming the path', () => {
      const dec = codec.createUpdateDecoder();
      const cases: Array<[unknown, string]> = [
        [
          { sessionUpdate: 'tool_call', toolCallId: 't' },
          "Invalid params: params.update: must have required property 'title'",
        ],
        [
          { sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'cancelled' },
          'Invalid params: params.update.status: must be equal to one of: pending, in_progress, completed, failed',
        ],
        [
          { sessionUpdate: 'plan', entries: [{ content: 'x', priority: 'high' }] },
          "Invalid params: params.update.entries[0]: must have required property 'status'",
        ],
        [
          { sessionUpdate: 'agent_message_chunk', content: { type: 'text' } },
          "Invalid params: params.update.content: must have required property 'text'",
        ],
        [
          { sessionUpdate: 'current_mode_update', modeId: 'x' },
          "Invalid params: params.update: must have required property 'currentModeId'",
        ],
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

    it('maps without a validator too (pure mapping logic)', () => {
      const dec = new V1Codec(null).createUpdateDecoder();
      expect(
        dec.decode({
          sessionUpdate: 'config_option_update',
          configOptions: [{ type: 'boolean', id: 'b', name: 'B', currentValue: true }],
        }),
      ).toEqual([
        {
          sessionUpdate: 'config_option_update',
          configOptions: [{ type: 'boolean', configId: 'b', name: 'B', currentValue: true }],
        },
      ]);
    });
  });
});

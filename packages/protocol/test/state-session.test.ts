import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SessionState, patchMeta } from '../src/state/index.js';
import type { AnySessionUpdate } from '../src/model/update.js';

const t = (text: string) => ({ type: 'text' as const, text });
const texts = (s: SessionState, role: 'user' | 'agent' | 'thought', id: string) =>
  s.message(role, id)!.content.map((b) => (b as { text: string }).text);

describe('messages (digest §5 item 4, ACP-V2-MSG-02..08)', () => {
  it('chunk A, chunk B, agent_message [C] => [C]', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('A') });
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('B') });
    expect(s.message('agent', 'm')!.text).toBe('AB');
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', content: [t('C')] });
    expect(texts(s, 'agent', 'm')).toEqual(['C']);
    expect(s.message('agent', 'm')!.text).toBe('C');
  });

  it('agent_message [A], chunk B => [A, B]', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', content: [t('A')] });
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('B') });
    expect(texts(s, 'agent', 'm')).toEqual(['A', 'B']);
  });

  it('omitted content keeps, null and [] clear (ACP-V2-MSG-04)', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', content: [t('A')] });
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', _meta: { k: 1 } });
    expect(texts(s, 'agent', 'm')).toEqual(['A']);
    expect(s.message('agent', 'm')!.meta).toEqual({ k: 1 });
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', content: null });
    expect(texts(s, 'agent', 'm')).toEqual([]);
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('X') });
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', content: [] });
    expect(texts(s, 'agent', 'm')).toEqual([]);
    expect(s.message('agent', 'm')!.text).toBe('');
  });

  it('keys by (role, messageId): same id in different roles are different messages, interleaved (ACP-V2-MSG-08)', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'user_message', messageId: '1', content: [t('hi')] });
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: '1', content: t('a') });
    s.apply({ sessionUpdate: 'agent_thought_chunk', messageId: '1', content: t('t') });
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: '2', content: t('b') });
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: '1', content: t('c') });
    expect(s.message('user', '1')!.text).toBe('hi');
    expect(s.message('agent', '1')!.text).toBe('ac');
    expect(s.message('thought', '1')!.text).toBe('t');
    expect(s.message('agent', '2')!.text).toBe('b');
    expect(s.timeline.map((e) => (e.kind === 'message' ? `${e.role}:${e.messageId}` : e.kind))).toEqual([
      'user:1',
      'agent:1',
      'thought:1',
      'agent:2',
    ]);
  });

  it('chunk _meta is chunk-scoped, message _meta patches per key (ACP-V2-MSG-06, ACP-V2-EXT-06)', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', _meta: { a: 1, b: 2 } });
    s.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('x'), _meta: { c: 3 } });
    expect(s.message('agent', 'm')!.meta).toEqual({ a: 1, b: 2 });
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', _meta: { a: null, b: { deep: true } } });
    expect(s.message('agent', 'm')!.meta).toEqual({ b: { deep: true } });
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', _meta: {} });
    expect(s.message('agent', 'm')!.meta).toEqual({ b: { deep: true } });
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', _meta: null });
    expect(s.message('agent', 'm')!.meta).toBeUndefined();
  });

  it('property: the result equals a model of replace/clear/append in arrival order', () => {
    type Op = { kind: 'chunk'; text: string } | { kind: 'set'; content: string[] | null | undefined };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('chunk' as const), text: fc.string({ maxLength: 3 }) }),
      fc.record({
        kind: fc.constant('set' as const),
        content: fc.oneof(
          fc.constant(null),
          fc.constant(undefined),
          fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops: Op[]) => {
        const s = new SessionState('s');
        let model: string[] = [];
        for (const o of ops) {
          if (o.kind === 'chunk') {
            s.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t(o.text) });
            model.push(o.text);
          } else {
            const u: AnySessionUpdate =
              o.content === undefined
                ? { sessionUpdate: 'agent_message', messageId: 'm' }
                : {
                    sessionUpdate: 'agent_message',
                    messageId: 'm',
                    content: o.content === null ? null : o.content.map(t),
                  };
            s.apply(u);
            if (o.content !== undefined) model = o.content === null ? [] : [...o.content];
          }
          // reading text in between must not break the cache
          expect(s.message('agent', 'm')!.text).toBe(model.join(''));
        }
        if (ops.length > 0) expect(texts(s, 'agent', 'm')).toEqual(model);
      }),
    );
  });

  it('appends 1 000 000 chunks to one message and joins the text', () => {
    const s = new SessionState('s');
    const chunk = { sessionUpdate: 'agent_message_chunk' as const, messageId: 'big', content: t('ab') };
    for (let i = 0; i < 1_000_000; i++) {
      s.apply(chunk);
      if (i === 500_000) expect(s.message('agent', 'big')!.text.length).toBe(1_000_002);
    }
    const text = s.message('agent', 'big')!.text;
    expect(text.length).toBe(2_000_000);
    expect(text.startsWith('abab')).toBe(true);
    expect(text.endsWith('abab')).toBe(true);
    expect(s.message('agent', 'big')!.content.length).toBe(1_000_000);
  });
});

describe('tool calls (digest §5 items 5, 6; ACP-V2-TOOL-03/04)', () => {
  it('unseen id creates with defaults pending/other and no title', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c1' });
    const c = s.toolCalls.get('c1')!;
    expect([c.status, c.toolKind, c.title, c.content, c.locations]).toEqual(['pending', 'other', undefined, [], []]);
    expect(s.timeline[0]).toBe(c);
  });

  it('omitted keeps, null resets status->pending and kind->other, values replace', () => {
    const s = new SessionState('s');
    s.apply({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c',
      title: 'Read',
      kind: 'read',
      status: 'in_progress',
      name: 'read_file',
      rawInput: { p: 1 },
    });
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c' });
    let c = s.toolCalls.get('c')!;
    expect([c.title, c.toolKind, c.status, c.name, c.rawInput]).toEqual([
      'Read',
      'read',
      'in_progress',
      'read_file',
      { p: 1 },
    ]);
    s.apply({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c',
      kind: null,
      status: null,
      title: null,
      name: null,
      rawInput: null,
    });
    c = s.toolCalls.get('c')!;
    expect([c.title, c.toolKind, c.status, c.name, c.rawInput]).toEqual([
      undefined,
      'other',
      'pending',
      undefined,
      undefined,
    ]);
  });

  it('arrays replace wholesale; chunks append to whatever is current; [] and null clear', () => {
    const s = new SessionState('s');
    const item = (x: string) => ({ type: 'content' as const, content: t(x) });
    s.apply({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: item('a') });
    s.apply({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: item('b') });
    s.apply({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c',
      content: [item('C')],
      locations: [{ path: '/x' }, { path: '/y' }],
    });
    s.apply({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: item('d') });
    expect(s.toolCalls.get('c')!.content).toEqual([item('C'), item('d')]);
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c', locations: [{ path: '/z' }] });
    expect(s.toolCalls.get('c')!.locations).toEqual([{ path: '/z' }]);
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c', content: [], locations: null });
    expect(s.toolCalls.get('c')!.content).toEqual([]);
    expect(s.toolCalls.get('c')!.locations).toEqual([]);
  });

  it('property: tool-call patches equal a three-state model (omitted keeps, null resets, value replaces)', () => {
    const tri = <T>(v: fc.Arbitrary<T>) => fc.oneof(fc.constant(undefined), fc.constant(null), v);
    const item = (x: string) => ({ type: 'content' as const, content: t(x) });
    const op = fc.oneof(
      fc.record({ chunk: fc.string({ maxLength: 2 }) }),
      fc.record(
        {
          title: tri(fc.string({ maxLength: 3 })),
          status: tri(fc.constantFrom('in_progress', 'completed', '_x')),
          kind: tri(fc.constantFrom('read', 'edit')),
          content: tri(fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 })),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), (ops) => {
        const s = new SessionState('s');
        const m = { title: undefined as string | undefined, status: 'pending', kind: 'other', content: [] as string[] };
        for (const o of ops) {
          if ('chunk' in o) {
            s.apply({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: item(o.chunk) });
            m.content.push(o.chunk);
            continue;
          }
          const u: Record<string, unknown> = { sessionUpdate: 'tool_call_update', toolCallId: 'c' };
          for (const k of ['title', 'status', 'kind'] as const) if (k in o) u[k] = o[k];
          if ('content' in o) u.content = o.content == null ? o.content : o.content.map(item);
          s.apply(u as AnySessionUpdate);
          if (o.title !== undefined) m.title = o.title ?? undefined;
          if (o.status !== undefined) m.status = o.status ?? 'pending';
          if (o.kind !== undefined) m.kind = o.kind ?? 'other';
          if (o.content !== undefined) m.content = o.content ? [...o.content] : [];
        }
        const c = s.toolCalls.get('c');
        if (ops.length === 0) {
          expect(c).toBeUndefined();
          return;
        }
        expect([c!.title, c!.status, c!.toolKind, c!.content]).toEqual([
          m.title,
          m.status,
          m.kind,
          m.content.map(item),
        ]);
      }),
    );
  });

  it('_meta patches per key (ACP-V2-EXT-06)', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c', _meta: { a: 1, b: 2 } });
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c', _meta: { b: null, c: [3] } });
    expect(s.toolCalls.get('c')!.meta).toEqual({ a: 1, c: [3] });
  });

  it('property: patchMeta equals a per-key model', () => {
    const val = fc.oneof(fc.constant(null), fc.integer(), fc.string());
    const meta = fc.dictionary(fc.constantFrom('a', 'b', 'c'), val);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(undefined), fc.constant(null), meta), { maxLength: 10 }), (patches) => {
        let cur: Record<string, unknown> | undefined;
        let model: Record<string, unknown> = {};
        for (const p of patches) {
          cur = patchMeta(cur, p as Record<string, unknown> | null | undefined);
          if (p === null) model = {};
          else if (p)
            for (const [k, v] of Object.entries(p)) {
              if (v === null) delete model[k];
              else model[k] = v;
            }
          expect(cur ?? {}).toEqual(model);
        }
      }),
    );
  });

  it('markUnfinishedToolCallsCancelled spares finished calls and background work', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'in_progress' });
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'b', status: 'completed' });
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'bg', status: 'in_progress' });
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'p' });
    s.apply({ sessionUpdate: 'state_update', state: 'running', background: [{ type: 'tool_call', toolCallId: 'bg' }] });
    expect(s.markUnfinishedToolCallsCancelled().sort()).toEqual(['a', 'p']);
    expect([...s.toolCalls.values()].map((c) => c.status)).toEqual([
      'cancelled',
      'completed',
      'in_progress',
      'cancelled',
    ]);
    // later agent updates still apply (ACP-V1-CANCEL-08)
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'failed' });
    expect(s.toolCalls.get('a')!.status).toBe('failed');
  });
});

describe('plans (digest §5 item 14)', () => {
  it('replaces per planId, leaves other plans, plan_removed removes', () => {
    const s = new SessionState('s');
    const entry = (c: string) => ({ content: c, priority: 'high', status: 'pending' });
    s.apply({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'a', entries: [entry('1'), entry('2')] } });
    s.apply({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'b', entries: [entry('x')] } });
    s.apply({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'a', entries: [entry('3')] } });
    expect(s.plans.get('a')!.plan).toEqual({ type: 'items', planId: 'a', entries: [entry('3')] });
    expect(s.plans.get('b')!.plan).toEqual({ type: 'items', planId: 'b', entries: [entry('x')] });
    expect(s.timeline.map((e) => (e as { planId?: string }).planId)).toEqual(['a', 'b']);
    s.apply({ sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'b', content: '# hi' } });
    expect(s.plans.get('b')!.plan).toEqual({ type: 'markdown', planId: 'b', content: '# hi' });
    s.apply({ sessionUpdate: 'plan_removed', planId: 'a' });
    expect([...s.plans.keys()]).toEqual(['b']);
    expect(s.timeline.length).toBe(1);
  });
});

describe('terminals (digest §5 item 15, ACP-V2-TERM-04..10)', () => {
  const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64');
  it('decodes chunks individually, appends bytes, snapshot replaces, exitStatus patch', () => {
    const s = new SessionState('s');
    const euro = [...Buffer.from('€')]; // 3 bytes, split across chunks
    s.apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: b64([0x61, euro[0]]) });
    s.apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: b64([euro[1], euro[2], 0x62]) });
    expect(s.terminals.get('t')!.outputText).toBe('a€b');
    s.apply({ sessionUpdate: 'terminal_update', terminalId: 't', command: 'ls', output: { data: b64([0x7a]) } });
    s.apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: b64([0x79]) });
    const term = s.terminals.get('t')!;
    expect(term.outputText).toBe('zy');
    expect(term.command).toBe('ls');
    expect(term.exited).toBe(false);
    s.apply({ sessionUpdate: 'terminal_update', terminalId: 't', exitStatus: { exitCode: -5, signal: null } });
    expect(term.exited).toBe(true);
    expect(term.exitStatus).toEqual({ exitCode: -5, signal: null });
    s.apply({ sessionUpdate: 'terminal_update', terminalId: 't', exitStatus: null, output: null });
    expect(term.exited).toBe(false);
    expect(term.output.length).toBe(0);
    expect(term.command).toBe('ls');
  });

  it('property: chunk bytes equal the concatenation of independently decoded chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 10 }), (chunks) => {
        const s = new SessionState('s');
        s.apply({ sessionUpdate: 'terminal_update', terminalId: 't' });
        for (const c of chunks)
          s.apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: Buffer.from(c).toString('base64') });
        expect(Buffer.from(s.terminals.get('t')!.output)).toEqual(Buffer.concat(chunks.map((c) => Buffer.from(c))));
      }),
    );
  });

  // issue 24 item 6: a consumer reading `output` after every chunk (a renderer) made a 40 MiB
  // stream quadratic, each read joining everything so far. Reads are views now: over 2 000
  // chunks of 4 KiB read after each, the bytes are copied into a new buffer only when it doubles.
  it('reading output after every chunk copies the bytes only when the buffer doubles', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'terminal_update', terminalId: 't' });
    const chunk = Buffer.alloc(4096, 0x78).toString('base64');
    const buffers = new Set<ArrayBufferLike>();
    let earlier: Uint8Array | undefined;
    for (let i = 0; i < 2000; i++) {
      s.apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: chunk });
      const out = s.terminals.get('t')!.output;
      expect(out.length).toBe((i + 1) * 4096);
      buffers.add(out.buffer);
      if (i === 10) earlier = out;
    }
    expect(buffers.size).toBeLessThanOrEqual(Math.ceil(Math.log2(2000)) + 1);
    // a view read earlier still shows what it showed
    expect(earlier?.length).toBe(11 * 4096);
    expect(earlier?.every((b) => b === 0x78)).toBe(true);
  });
});

describe('subagents (unstable subagent_update)', () => {
  it('reading an id that was never announced creates no child; subagent_update creates and patches one', () => {
    const s = new SessionState('parent');
    expect(s.subagent('child')).toBeUndefined();
    expect(s.subagents.size).toBe(0);
    expect((s.toJSON() as { subagents: unknown[] }).subagents).toEqual([]);
    expect(s.applyChild('child', { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('x') })).toBe(
      false,
    );
    s.apply({ sessionUpdate: 'subagent_update', sessionId: 'child', title: 'Search' });
    s.apply({ sessionUpdate: 'subagent_update', sessionId: 'child', description: 'looks things up' });
    const child = s.subagent('child');
    expect(child?.title).toBe('Search');
    expect(child?.description).toBe('looks things up');
    expect([...s.subagents.keys()]).toEqual(['child']);
    expect(s.applyChild('child', { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: t('x') })).toBe(true);
    expect(child?.session.message('agent', 'm')?.text).toBe('x');
    expect(s.subagent('other')).toBeUndefined();
    expect(s.subagents.size).toBe(1);
  });
});

describe('foreground, config, commands, info, usage, notices, unknown', () => {
  it('foreground state, sticky stop reason, background snapshot (ACP-V2-LIFE-15, ACP-V2-BG-01)', () => {
    const s = new SessionState('s');
    expect(s.foreground.state).toBe('idle');
    s.apply({ sessionUpdate: 'state_update', state: 'running', background: [] });
    expect(s.busy).toBe(true);
    s.apply({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: { code: 1, message: 'boom' } });
    expect(s.foreground).toEqual({
      state: 'idle',
      lastStopReason: 'error',
      lastError: { code: 1, message: 'boom' },
      background: [],
    });
    s.apply({ sessionUpdate: 'state_update', state: 'idle' });
    expect(s.foreground.lastStopReason).toBe('error');
    s.apply({ sessionUpdate: 'state_update', state: '_thinking_hard' });
    expect(s.busy).toBe(true);
    s.apply({
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'end_turn',
      background: [{ type: 'terminal', terminalId: 't' }],
    });
    expect(s.foreground).toEqual({
      state: 'idle',
      lastStopReason: 'end_turn',
      lastError: undefined,
      background: [{ type: 'terminal', terminalId: 't' }],
    });
  });

  it('config options replace fully; current_mode_update moves the mode option', () => {
    const s = new SessionState('s');
    const mode = (v: string) => ({
      type: 'select' as const,
      configId: 'mode',
      name: 'Mode',
      category: 'mode',
      currentValue: v,
      options: [
        { value: 'ask', name: 'Ask' },
        { value: 'code', name: 'Code' },
      ],
    });
    const bool = { type: 'boolean' as const, configId: 'fast', name: 'Fast', currentValue: true };
    s.applySetup({
      configOptions: [mode('ask'), bool],
      modes: {
        currentModeId: 'ask',
        availableModes: [
          { id: 'ask', name: 'Ask' },
          { id: 'code', name: 'Code' },
        ],
      },
    });
    s.apply({ sessionUpdate: 'current_mode_update', currentModeId: 'code' });
    expect(s.configOptions).toEqual([mode('code'), bool]);
    expect(s.modes!.currentModeId).toBe('code');
    s.apply({ sessionUpdate: 'config_option_update', configOptions: [bool] });
    expect(s.configOptions).toEqual([bool]);
  });

  it('commands replace, session info patches, usage cost patch, notices list, unknown kept raw', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'a', description: 'A' }] });
    s.apply({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'b', description: 'B' }] });
    expect(s.availableCommands.map((c) => c.name)).toEqual(['b']);
    s.apply({ sessionUpdate: 'session_info_update', title: 'T', updatedAt: '2026-01-01T00:00:00Z', _meta: { x: 1 } });
    s.apply({ sessionUpdate: 'session_info_update', updatedAt: null });
    expect(s.info).toEqual({ title: 'T', updatedAt: undefined, meta: { x: 1 } });
    s.apply({ sessionUpdate: 'usage_update', used: 1, size: 10, cost: { amount: 1, currency: 'USD' } });
    s.apply({ sessionUpdate: 'usage_update', used: 2, size: 10 });
    expect(s.usage).toEqual({ used: 2, size: 10, cost: { amount: 1, currency: 'USD' } });
    s.apply({ sessionUpdate: 'usage_update', used: 3, size: 10, cost: null });
    expect(s.usage).toEqual({ used: 3, size: 10, cost: undefined });
    s.apply({ sessionUpdate: 'notice', severity: 'warning', title: 'careful' });
    expect(s.notices.map((n) => n.title)).toEqual(['careful']);
    const raw = { sessionUpdate: '_vendor_thing', payload: { deep: [1] } };
    s.apply(raw);
    expect(s.unknownUpdates).toEqual([raw]);
  });

  it('compactions: first update fixes the position, chunks append, summary [] clears (ACP-V2-COMPACT-01)', () => {
    const s = new SessionState('s');
    s.apply({ sessionUpdate: 'agent_message', messageId: 'm', content: [t('x')] });
    s.apply({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: t('sum') });
    s.apply({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'completed' });
    expect(s.compactions.get('k')!.summary).toEqual([t('sum')]);
    expect(s.timeline.map((e) => e.kind)).toEqual(['message', 'compaction']);
    s.apply({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'completed', summary: [] });
    expect(s.compactions.get('k')!.summary).toEqual([]);
  });

  it('onChange reports each update with the state; unsubscribe stops it', () => {
    const s = new SessionState('s');
    const seen: string[] = [];
    const off = s.onChange((u, st) => seen.push(`${u.sessionUpdate}:${st.toolCalls.size}`));
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c' });
    off();
    s.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'd' });
    expect(seen).toEqual(['tool_call_update:1']);
    expect(JSON.parse(JSON.stringify(s)).timeline.length).toBe(2);
  });
});

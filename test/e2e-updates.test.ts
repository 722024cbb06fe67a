// End-to-end: every neutral update kind goes agent runtime (dist) -> v1/v2 codec -> real stdio pipe
// -> client codec -> SessionState, and the final state is what the neutral updates mean, in both
// versions, modulo the degradations documented in src/protocol/codec/README.md. Every message on
// the wire is checked against the official schema of the negotiated version.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClientConnection } from '../packages/client/src/index.js';
import { startE2E, type Wire } from './support/e2e.js';

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const start = (v: 1 | 2, opts: Record<string, unknown> = {}) => startE2E(v, open, opts);

const script = (actions: unknown[], stop?: unknown): string =>
  JSON.stringify(stop === undefined ? { actions } : { actions, stop });
const text = (t: string) => ({ type: 'text', text: t });
const send = (update: Record<string, unknown>) => ({ send: update });

/** Wire `session/update` kinds the agent sent, in order. */
function wireKinds(wire: Wire[]): string[] {
  return wire
    .filter((w) => w.dir === 'in' && w.msg.method === 'session/update')
    .map((w) => (w.msg.params as { update: { sessionUpdate: string } }).update.sessionUpdate);
}

describe.each([1, 2] as const)('every update kind over v%i', (v) => {
  it('messages: chunks, whole-message replacement, metadata patches (ACP-V2-MSG-03..06, §5.4)', async () => {
    const { conn, tap, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(
      script([
        send({ sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('hmm') }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('Hel') }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('lo') }),
        // replacement after chunks (v2: replaces; v1: cannot be expressed, dropped)
        send({ sessionUpdate: 'agent_message', messageId: 'm1', content: [text('Replaced')] }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text(' more') }),
        // a whole message first, then chunks append (§5.4)
        send({ sessionUpdate: 'agent_message', messageId: 'm2', content: [text('A')], _meta: { x: 1, y: 2 } }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: text('B'), _meta: { chunkOnly: true } }),
        // metadata-only patch (v2: per key; v1: dropped)
        send({ sessionUpdate: 'agent_message', messageId: 'm2', _meta: { y: null, z: 3 } }),
        // separate id spaces: same id, different role (ACP-V2-MSG-08)
        send({ sessionUpdate: 'agent_thought_chunk', messageId: 'm2', content: text('thought m2') }),
        // clear (v2 only)
        send({ sessionUpdate: 'agent_message', messageId: 'm3', content: [text('gone')] }),
        send({ sessionUpdate: 'agent_message', messageId: 'm3', content: null }),
      ]),
    );
    expect(r.stopReason).toBe('end_turn');
    const agent = (id: string) => s.state.message('agent', id);
    expect(s.state.message('thought', 't1')?.text).toBe('hmm');
    expect(s.state.message('thought', 'm2')?.text).toBe('thought m2');
    if (v === 2) {
      expect(agent('m1')?.text).toBe('Replaced more');
      expect(agent('m2')?.content).toEqual([text('A'), text('B')]);
      expect(agent('m2')?.meta).toEqual({ x: 1, z: 3 });
      expect(agent('m3')?.content).toEqual([]);
      // v2 echo of the prompt with the id the response returned (ACP-V2-LIFE-04/11)
      expect(r.userMessageId).toBeDefined();
      expect(s.state.message('user', r.userMessageId!)?.text).toContain('"actions"');
    } else {
      expect(agent('m1')?.text).toBe('Hello more');
      expect(agent('m2')?.content).toEqual([text('A'), text('B')]);
      // v1 has no message-level _meta: the encoder puts it on the first chunk, which is chunk-scoped
      expect(agent('m2')?.meta).toBeUndefined();
      expect(agent('m3')?.text).toBe('gone');
      expect(s.state.messageList.filter((m) => m.role === 'user').map((m) => m.text)).toHaveLength(1);
    }
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('tool calls: created by the first update, patches, content chunks, null clears, statuses (§5.5–5.7, ACP-V2-TOOL-03/04)', async () => {
    const { conn, tap, wire, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(
      script([
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc1',
          title: 'Read a.txt',
          name: 'read_file',
          kind: 'read',
          status: 'pending',
          locations: [{ path: '/tmp/a.txt', line: 3 }],
          rawInput: { path: '/tmp/a.txt' },
        }),
        send({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'in_progress' }),
        send({
          sessionUpdate: 'tool_call_content_chunk',
          toolCallId: 'tc1',
          content: { type: 'content', content: text('part 1') },
        }),
        send({
          sessionUpdate: 'tool_call_content_chunk',
          toolCallId: 'tc1',
          content: { type: 'content', content: text('part 2') },
        }),
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc1',
          status: 'completed',
          rawOutput: { ok: true },
          _meta: { a: 1, b: 2 },
        }),
        send({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', _meta: { b: null, c: 3 } }),
        // replacement then a chunk appends to it (§5.4 for tool calls)
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc2',
          title: 'Run tests',
          kind: 'execute',
          status: 'in_progress',
          content: [{ type: 'content', content: text('old') }],
        }),
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc2',
          content: [{ type: 'content', content: text('new') }],
        }),
        send({
          sessionUpdate: 'tool_call_content_chunk',
          toolCallId: 'tc2',
          content: { type: 'content', content: text('tail') },
        }),
        send({ sessionUpdate: 'tool_call_update', toolCallId: 'tc2', status: 'cancelled' }),
        // first sighting without title (v2 defaults), then null clears
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc3',
          kind: 'edit',
          status: 'in_progress',
          locations: [{ path: '/tmp/b.txt' }],
        }),
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc3',
          kind: null,
          status: null,
          locations: null,
          title: 'Edit b',
        }),
        // a diff
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc4',
          title: 'Edit c',
          kind: 'edit',
          status: 'completed',
          content: [{ type: 'diff', path: '/tmp/c.txt', oldText: 'one\n', newText: 'two\n' }],
        }),
        // custom kind/status (v2 open enums; v1: other / in_progress)
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc5',
          title: 'Custom',
          kind: '_probe',
          status: 'paused',
        }),
      ]),
    );
    expect(r.stopReason).toBe('end_turn');
    const tc = (id: string) => s.state.toolCalls.get(id)!;
    expect(tc('tc1')).toMatchObject({
      title: 'Read a.txt',
      name: 'read_file',
      toolKind: 'read',
      status: 'completed',
      rawInput: { path: '/tmp/a.txt' },
      rawOutput: { ok: true },
    });
    expect(tc('tc1').locations).toEqual([{ path: '/tmp/a.txt', line: 3 }]);
    expect(tc('tc1').content).toEqual([
      { type: 'content', content: text('part 1') },
      { type: 'content', content: text('part 2') },
    ]);
    expect(tc('tc2').content).toEqual([
      { type: 'content', content: text('new') },
      { type: 'content', content: text('tail') },
    ]);
    expect(tc('tc4').content).toHaveLength(1);
    if (v === 2) {
      expect(tc('tc1').meta).toEqual({ a: 1, c: 3 });
      expect(tc('tc2').status).toBe('cancelled');
      expect(tc('tc3')).toMatchObject({ title: 'Edit b', toolKind: 'other', status: 'pending', locations: [] });
      expect(tc('tc4').content[0]).toMatchObject({ type: 'file_changes' });
      expect(tc('tc5')).toMatchObject({ toolKind: '_probe', status: 'paused' });
      expect(wireKinds(wire).filter((k) => k === 'tool_call')).toEqual([]);
    } else {
      // v1: null = unchanged on the wire; the encoder maps kind/status/locations null to their defaults
      expect(tc('tc2').status).toBe('failed');
      expect(tc('tc3')).toMatchObject({ title: 'Edit b', toolKind: 'other', status: 'pending', locations: [] });
      expect(tc('tc4').content[0]).toEqual({ type: 'diff', path: '/tmp/c.txt', oldText: 'one\n', newText: 'two\n' });
      expect(tc('tc5')).toMatchObject({ toolKind: 'other', status: 'in_progress' });
      // each call is created with `tool_call`, then patched (ACP-V1-TOOL-01)
      expect(wireKinds(wire).filter((k) => k === 'tool_call')).toHaveLength(5);
    }
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('plans: keyed in v2, one merged plan in v1 (§5.14, ACP-V2-PLAN-04, ACP-V1-PLAN-04)', async () => {
    const { conn, tap, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const e = (content: string, status: string, priority = 'medium') => ({ content, status, priority });
    await s.prompt(
      script([
        send({
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: 'a', entries: [e('a1', 'pending', 'high')] },
        }),
        send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'b', entries: [e('b1', 'in_progress')] } }),
        send({
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: 'a', entries: [e('a1', 'completed', 'high'), e('a2', 'cancelled', 'low')] },
        }),
      ]),
    );
    if (v === 2) {
      expect([...s.state.plans.keys()]).toEqual(['a', 'b']);
      expect(s.state.plans.get('a')!.plan).toMatchObject({
        type: 'items',
        entries: [e('a1', 'completed', 'high'), e('a2', 'cancelled', 'low')],
      });
      expect(s.state.plans.get('b')!.plan).toMatchObject({ entries: [e('b1', 'in_progress')] });
    } else {
      expect([...s.state.plans.keys()]).toEqual(['main']);
      // merged in first-seen plan order; `cancelled` entries cannot be sent in v1
      expect(s.state.plans.get('main')!.plan).toMatchObject({
        type: 'items',
        entries: [e('a1', 'completed', 'high'), e('b1', 'in_progress')],
      });
    }
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('session-level updates: usage, info (null clears), config options + modes, commands, notice, compaction', async () => {
    const { conn, tap, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    // setup results carry the config options (v1 also `modes`, ACP-V1-CFG-04)
    expect(s.state.configOptions.map((o) => o.configId)).toEqual(['mode', 'model', 'fast']);
    if (v === 1) expect(s.state.modes).toMatchObject({ currentModeId: 'ask' });
    const cfg = s.state.configOptions.map((o) => (o.configId === 'model' ? { ...o, currentValue: 'large' } : o));
    await s.prompt(
      script([
        send({ sessionUpdate: 'usage_update', used: 100, size: 1000, cost: { amount: 0.5, currency: 'USD' } }),
        send({ sessionUpdate: 'usage_update', used: 200, size: 1000 }),
        send({
          sessionUpdate: 'session_info_update',
          title: 'First',
          updatedAt: '2026-11-02T10:00:00Z',
          _meta: { k: 1, j: 2 },
        }),
        send({ sessionUpdate: 'session_info_update', title: null, _meta: { j: null } }),
        send({ sessionUpdate: 'config_option_update', configOptions: cfg }),
        send({ sessionUpdate: 'current_mode_update', currentModeId: 'code' }),
        send({
          sessionUpdate: 'available_commands_update',
          availableCommands: [{ name: 'test', description: 'Run tests', input: { hint: 'pattern' } }],
        }),
        send({ sessionUpdate: 'notice', severity: 'warning', title: 'Heads up', description: 'rate limited' }),
        send({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' }),
        send({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('summary') }),
        send({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' }),
      ]),
    );
    expect(s.state.usage).toEqual({ used: 200, size: 1000, cost: { amount: 0.5, currency: 'USD' } });
    expect(s.state.info.title).toBeUndefined();
    expect(s.state.info.updatedAt).toBe('2026-11-02T10:00:00Z');
    const value = (id: string) => s.state.configOptions.find((o) => o.configId === id)?.currentValue;
    expect(value('model')).toBe('large');
    expect(value('mode')).toBe('code');
    expect(value('fast')).toBe(false);
    if (v === 1) expect(s.state.modes?.currentModeId).toBe('code');
    expect(s.state.availableCommands.map((c) => c.name)).toEqual(['test']);
    expect(s.state.notices.map((n) => n.title)).toEqual(['Heads up']);
    expect(s.state.compactions.get('c1')).toMatchObject({ status: 'completed', summary: [text('summary')] });
    if (v === 2) expect(s.state.info.meta).toEqual({ k: 1 });
    await s.prompt(script([send({ sessionUpdate: 'usage_update', used: 1, size: 1000, cost: null })]));
    // v2: null clears the cost (ACP-ALL-USAGE-01); v1 `cost: null` is "no cost"
    expect(s.state.usage).toEqual({ used: 1, size: 1000, cost: undefined });
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('display terminals are v2 only (ACP-V2-TERM-07/08, ACP-V2-TERM-12)', async () => {
    const { conn, tap, wire, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const b64 = (t: string | Buffer) => Buffer.from(t).toString('base64');
    const euro = Buffer.from('€');
    await s.prompt(
      script([
        send({
          sessionUpdate: 'terminal_update',
          terminalId: 'term1',
          command: 'ls',
          cwd: '/tmp',
          output: { data: b64('old ') },
        }),
        send({ sessionUpdate: 'terminal_update', terminalId: 'term1', output: { data: b64('snap ') } }),
        send({ sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64(euro.subarray(0, 1)) }),
        send({ sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64(euro.subarray(1)) }),
        send({ sessionUpdate: 'terminal_update', terminalId: 'term1', exitStatus: { exitCode: 0, signal: null } }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'after', content: text('done') }),
      ]),
    );
    if (v === 2) {
      const t = s.state.terminals.get('term1')!;
      expect(t.outputText).toBe('snap €');
      expect(t).toMatchObject({ command: 'ls', cwd: '/tmp', exited: true });
    } else {
      expect(s.state.terminals.size).toBe(0);
      expect(wireKinds(wire).some((k) => k.startsWith('terminal'))).toBe(false);
    }
    expect(s.state.message('agent', 'after')?.text).toBe('done');
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });
});

describe('unknown update kinds (ACP-V2-EXT-03, §5.16)', () => {
  it('v2: a `_` kind is preserved raw in the client state', async () => {
    const { conn, tap, problems } = await start(2);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt(
      script([
        send({ sessionUpdate: '_e2e_custom', payload: { deep: [1, 2] }, _meta: { m: true } }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'x', content: text('after custom') }),
      ]),
    );
    expect(s.state.unknownUpdates).toEqual([
      { sessionUpdate: '_e2e_custom', payload: { deep: [1, 2] }, _meta: { m: true } },
    ]);
    expect(s.state.message('agent', 'x')?.text).toBe('after custom');
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('v1: an unknown kind is never sent (the v1 union is closed); the session goes on', async () => {
    const { conn, tap, wire, problems } = await start(1);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(
      script([
        send({ sessionUpdate: '_e2e_custom', payload: 1 }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'x', content: text('after custom') }),
      ]),
    );
    expect(r.stopReason).toBe('end_turn');
    expect(s.state.message('agent', 'x')?.text).toBe('after custom');
    // the v1 encoder drops it (schema wins on output): the client never sees it
    expect(wireKinds(wire)).not.toContain('_e2e_custom');
    expect(s.state.unknownUpdates).toEqual([]);
    expect(problems).toEqual([]);
    expect(tap.failures).toEqual([]);
    tap.assertAllValid();
  });
});

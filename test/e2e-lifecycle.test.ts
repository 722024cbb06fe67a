// End-to-end: prompt lifecycle, ordering and cancellation between acp-kit's client and agent
// runtime over real stdio pipes, in both protocol versions, every wire message schema-checked.
// Requirement IDs: ACP-V1-PROMPT-03, ACP-V2-LIFE-03..07/09/10/12/13, ACP-V2-STOP-01, ACP-V1-STOP-01,
// ACP-V2-PERM-02, ACP-V2-SESS-05, §5.3. Cancellation and close: e2e-cancel.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../packages/client/src/index.js';
import { approveAll } from '../packages/client/src/services/permission-policy.js';
import { chunk, isUpdate, QUESTION, responseIndex, script, startE2E, updateOf, waitFor } from './support/e2e.js';

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const start = (v: 1 | 2, opts: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  startE2E(v, open, opts, env);

describe.each([1, 2] as const)('prompt lifecycle over v%i', (v) => {
  it('prompt() resolves only when the turn ends, after every update of it (ACP-V1-PROMPT-03, ACP-V2-LIFE-10)', async () => {
    const { conn, tap, wire, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(
      script([chunk('m', 'one'), { sleep: 150 }, chunk('m', ' two'), { sleep: 50 }], 'max_tokens'),
    );
    expect(r.stopReason).toBe('max_tokens');
    expect(s.state.message('agent', 'm')?.text).toBe('one two');
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'max_tokens' });
    const resp = responseIndex(wire, 'session/prompt');
    if (v === 1) {
      expect((wire[resp].msg.result as { stopReason: string }).stopReason).toBe('max_tokens');
      expect(wire.slice(resp + 1).some(isUpdate)).toBe(false);
    } else {
      // v2: response at insertion with the echo's id, then running, output, idle (ACP-V2-LIFE-03..06)
      const { messageId } = wire[resp].msg.result as { messageId: string };
      expect(r.userMessageId).toBe(messageId);
      const after = wire
        .slice(resp + 1)
        .filter(isUpdate)
        .map(updateOf);
      expect(after.map((u) => (u.sessionUpdate === 'state_update' ? `state:${u.state}` : u.sessionUpdate))).toEqual([
        'user_message',
        'state:running',
        'agent_message_chunk',
        'agent_message_chunk',
        'state:idle',
      ]);
      expect(after[0]).toMatchObject({ messageId });
      expect(after[4]).toMatchObject({ stopReason: 'max_tokens' });
    }
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('a permission answered by policy resumes the turn (v2: requires_action, then running)', async () => {
    const { conn, tap, problems } = await start(v, { permissionPolicy: approveAll() });
    const s = await conn.newSession({ cwd: '/tmp' });
    const states: string[] = [];
    s.onUpdate((u) => u.sessionUpdate === 'state_update' && states.push(String((u as { state: string }).state)));
    const r = await s.prompt(
      script([
        { ask: QUESTION, as: 'w' },
        { send: { sessionUpdate: 'tool_call_update', toolCallId: 'w1', status: 'completed' } },
      ]),
    );
    expect(r.stopReason).toBe('end_turn');
    expect(s.state.message('agent', 'perm-w')?.text).toBe('permission w: allow');
    expect(s.state.toolCalls.get('w1')?.status).toBe('completed');
    if (v === 2) expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
    else expect(states).toEqual(['running', 'idle']);
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('an author failure: v2 idle `error` with the cause, v1 a precise JSON-RPC error (§5.3, ACP-V2-LIFE-12)', async () => {
    const { conn, tap } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    // on the wire v2 sends an idle `error`, v1 a JSON-RPC error; the client resolves both alike
    const r = await s.prompt(script([chunk('m', 'x'), { throw: 'disk on fire' }]));
    expect(r).toMatchObject({
      stopReason: 'error',
      error: { code: -32603, message: v === 2 ? 'disk on fire' : expect.stringContaining('disk on fire') },
    });
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'error' });
    // the session is still usable
    expect((await s.prompt('hi')).stopReason).toBe('end_turn');
    tap.assertAllValid();
  });

  it('custom stop reasons: v2 passes `_x` on, v1 degrades to end_turn (ACP-V2-STOP-01, ACP-V1-STOP-01)', async () => {
    const { conn, tap } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(script([], '_e2e_stop'));
    expect(r.stopReason).toBe(v === 2 ? '_e2e_stop' : 'end_turn');
    tap.assertAllValid();
  });

  it('updates sent before the session/new response are not lost (ACP-V2-SESS-05)', async () => {
    const { conn, tap, wire, problems } = await start(v, {}, { E2E_EARLY: '1' });
    const s = await conn.newSession({ cwd: '/tmp' });
    const resp = responseIndex(wire, 'session/new');
    expect(wire.slice(0, resp).filter(isUpdate).length).toBeGreaterThanOrEqual(2);
    expect(s.state.info.title).toBe('early title');
    expect(s.state.message('agent', 'welcome')?.text).toBe('welcome');
    expect(s.state.foreground.state).toBe('idle');
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('background updates after the turn still apply (ACP-V2-LIFE-09, ACP-V1-CANCEL-08)', async () => {
    const { conn, tap } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt(
      script([{ afterSession: 50, send: { sessionUpdate: 'session_info_update', title: 'named later' } }]),
    );
    await waitFor(s, (u) => u.sessionUpdate === 'session_info_update');
    expect(s.state.info.title).toBe('named later');
    expect(s.state.foreground.state).toBe('idle');
    tap.assertAllValid();
  });

  it('two prompts sent at once: each resolves with its own turn, in order (ACP-V2-LIFE-13)', async () => {
    const { conn, tap, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const a = s.prompt(script([chunk('a', 'A'), { sleep: 200 }], 'max_tokens'));
    const b = s.prompt(script([chunk('b', 'B')], 'end_turn'));
    const ra = await a;
    expect(ra.stopReason).toBe('max_tokens');
    const rb = await b;
    expect(rb.stopReason).toBe('end_turn');
    // when b resolved, its turn had run
    expect(s.state.message('agent', 'b')?.text).toBe('B');
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'end_turn' });
    if (v === 2) expect(ra.userMessageId).not.toBe(rb.userMessageId);
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });
});

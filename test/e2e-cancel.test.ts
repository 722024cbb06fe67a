// End-to-end: cancellation and close between acp-kit's client and agent runtime over real stdio
// pipes, in both protocol versions, every wire message schema-checked.
// Requirement IDs: ACP-V1-CANCEL-02/03/05/06/07, ACP-V2-CANCEL-02/03/05/06/07, ACP-ALL-PERM-03,
// ACP-ALL-CREQ-04/07, ACP-ALL-RPC-02, ACP-ALL-CLOSE-01, ACP-V2-CLOSE-01/02, §5.1, §5.2, §5.17.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../packages/client/src/index.js';
import { interactive } from '../packages/client/src/services/permission-policy.js';
import { chunk, isUpdate, QUESTION, responseIndex, script, startE2E, text, updateOf, waitFor } from './support/e2e.js';

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const start = (v: 1 | 2, opts: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  startE2E(v, open, opts, env);

describe.each([1, 2] as const)('cancellation over v%i', (v) => {
  it('cancel while streaming: stop reason cancelled, nothing of the turn after its end (§5.1/5.2, ACP-V1-CANCEL-07, ACP-V2-CANCEL-07)', async () => {
    const { conn, tap, wire, problems, roundTrip, stderrLine } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    // what a careless author sends after its turn ended must be dropped: armed now, fired after the end
    const actions: unknown[] = [
      { onExt: '_e2e/late', send: { sessionUpdate: 'agent_message_chunk', messageId: 'late', content: text('LATE') } },
    ];
    actions.push({
      send: {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'run',
        title: 'Run',
        kind: 'execute',
        status: 'in_progress',
      },
    });
    for (let i = 0; i < 50; i++) actions.push(chunk('m', `${i};`), { sleep: 20 });
    const started = waitFor(s, (u) => u.sessionUpdate === 'agent_message_chunk');
    const p = s.prompt(script(actions));
    await started;
    s.cancel();
    // the client marks unfinished calls cancelled at once (ACP-V1-CANCEL-02, ACP-V2-CANCEL-02)
    expect(s.state.toolCalls.get('run')?.status).toBe('cancelled');
    const r = await p;
    expect(r.stopReason).toBe('cancelled');
    expect(s.state.message('agent', 'm')!.text.split(';').length).toBeLessThan(50);
    // the author sends `late` after the turn ended; the round trip after it shows it was dropped
    conn.extNotify('_e2e/late', {});
    await roundTrip();
    await stderrLine(/^fired _e2e\/late$/m);
    expect(s.state.message('agent', 'late')).toBeUndefined();
    const cancelAt = wire.findIndex((w) => w.dir === 'out' && w.msg.method === 'session/cancel');
    expect(cancelAt).toBeGreaterThan(0);
    expect('id' in wire[cancelAt].msg).toBe(false);
    if (v === 1) {
      const resp = responseIndex(wire, 'session/prompt');
      expect(wire[resp].msg.result).toEqual({ stopReason: 'cancelled' });
      expect(wire.slice(resp + 1).some(isUpdate)).toBe(false);
    } else {
      const idle = wire.findIndex((w) => isUpdate(w) && updateOf(w).state === 'idle');
      expect(updateOf(wire[idle])).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
      expect(wire.slice(idle + 1).some(isUpdate)).toBe(false);
    }
    // nothing answers a notification (ACP-ALL-RPC-02) and no error anywhere
    expect(wire.some((w) => w.dir === 'in' && 'error' in w.msg)).toBe(false);
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('cancel during a permission question: answered cancelled, the question resolves cancelled, turn ends cancelled (§5.1, ACP-ALL-PERM-03)', async () => {
    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    const { conn, tap, wire, problems } = await start(v, {
      permissionPolicy: interactive(() => (asked(), new Promise<never>(() => undefined))),
    });
    const s = await conn.newSession({ cwd: '/tmp' });
    const p = s.prompt(script([{ ask: QUESTION, as: 'w' }, { reportSignal: true }]));
    await askedP;
    // the request's tool call was applied before the question was shown (ACP-V2-PERM-02)
    expect(s.state.toolCalls.get('w1')).toMatchObject({ title: 'Write file', status: 'pending' });
    if (v === 2) expect(s.state.foreground.state).toBe('requires_action');
    s.cancel();
    const r = await p;
    expect(r.stopReason).toBe('cancelled');
    expect(s.state.message('agent', 'perm-w')?.text).toBe('permission w: cancelled');
    expect(s.state.message('agent', 'signal')?.text).toBe('aborted: true');
    const permReq = wire.find((w) => w.dir === 'in' && w.msg.method === 'session/request_permission')!;
    const answer = wire.find((w) => w.dir === 'out' && w.msg.id === permReq.msg.id && !('method' in w.msg));
    expect(answer?.msg.result).toEqual({ outcome: { outcome: 'cancelled' } });
    if (v === 2) {
      const states = wire
        .filter((w) => isUpdate(w) && updateOf(w).sessionUpdate === 'state_update')
        .map((w) => updateOf(w).state);
      expect(states).toEqual(['idle', 'running', 'requires_action', 'idle'].slice(states[0] === 'idle' ? 0 : 1));
    }
    expect(wire.some((w) => w.dir === 'in' && 'error' in w.msg)).toBe(false);
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('an abort error thrown by the author after a cancel is still `cancelled`, never a JSON-RPC error (ACP-V1-CANCEL-06, ACP-V2-CANCEL-06)', async () => {
    const { conn, tap, wire } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const started = waitFor(s, (u) => u.sessionUpdate === 'agent_message_chunk');
    const p = s.prompt(script([chunk('m', 'x'), { sleepIgnoringCancel: 200 }, { throwAbort: true }]));
    await started;
    s.cancel();
    expect((await p).stopReason).toBe('cancelled');
    expect(wire.some((w) => w.dir === 'in' && 'error' in w.msg)).toBe(false);
    tap.assertAllValid();
  });

  it('an author that ignores the cancel is ended by the runtime; its later output is dropped', async () => {
    const { conn, tap, wire, roundTrip, stderrLine } = await start(v, {}, { E2E_CANCEL_TIMEOUT: '200' });
    const s = await conn.newSession({ cwd: '/tmp' });
    const started = waitFor(s, (u) => u.sessionUpdate === 'agent_message_chunk');
    const p = s.prompt(script([chunk('m', 'x'), { sleepIgnoringCancel: 450 }, chunk('late', 'LATE')]));
    await started;
    s.cancel();
    expect((await p).stopReason).toBe('cancelled');
    // had the runtime waited for the author, the `late` chunk (sent before it returns) would be on the wire
    await stderrLine(/^script-done$/m);
    await roundTrip();
    expect(s.state.message('agent', 'late')).toBeUndefined();
    expect(wire.filter(isUpdate).some((w) => updateOf(w).messageId === 'late')).toBe(false);
    tap.assertAllValid();
  });

  it('closing a session mid-turn cancels it before the close response (ACP-ALL-CLOSE-01, ACP-V2-CLOSE-01/02)', async () => {
    const { conn, tap, wire, problems, roundTrip } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const started = waitFor(s, (u) => u.sessionUpdate === 'agent_message_chunk');
    const p = s.prompt(script([chunk('m', 'x'), { sleep: 10_000 }]));
    await started;
    await s.close();
    expect((await p).stopReason).toBe('cancelled');
    const closeResp = responseIndex(wire, 'session/close');
    expect(wire[closeResp].msg.result).toEqual({});
    if (v === 1) {
      const resp = responseIndex(wire, 'session/prompt');
      expect(wire[resp].msg.result).toEqual({ stopReason: 'cancelled' });
      expect(resp).toBeLessThan(closeResp);
    } else {
      const idle = wire.findIndex((w) => isUpdate(w) && updateOf(w).state === 'idle');
      expect(updateOf(wire[idle])).toMatchObject({ stopReason: 'cancelled' });
      expect(idle).toBeLessThan(closeResp);
    }
    // nothing more for that session after the close response
    await roundTrip();
    expect(wire.slice(closeResp + 1).some(isUpdate)).toBe(false);
    expect(s.closed).toBe(true);
    await expect(s.prompt('again')).rejects.toThrow(/closed/);
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('closing a session during a permission question: the question is cancelled, the turn ends cancelled, then the close answers (ACP-V2-CLOSE-02)', async () => {
    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    const { conn, tap, wire, problems } = await start(v, {
      permissionPolicy: interactive(() => (asked(), new Promise<never>(() => undefined))),
    });
    const s = await conn.newSession({ cwd: '/tmp' });
    const p = s.prompt(script([{ ask: QUESTION, as: 'w' }, { sleep: 10_000 }]));
    await askedP;
    await s.close();
    expect((await p).stopReason).toBe('cancelled');
    const permReq = wire.find((w) => w.dir === 'in' && w.msg.method === 'session/request_permission')!;
    const answer = wire.findIndex((w) => w.dir === 'out' && w.msg.id === permReq.msg.id && !('method' in w.msg));
    expect(wire[answer].msg.result).toEqual({ outcome: { outcome: 'cancelled' } });
    // answered once, even though the agent also withdrew it with $/cancel_request (ACP-ALL-CREQ-04)
    expect(wire.filter((w) => w.dir === 'out' && w.msg.id === permReq.msg.id && !('method' in w.msg)).length).toBe(1);
    const closeResp = responseIndex(wire, 'session/close');
    // the agent withdrew its question itself (ACP-V2-CANCEL-03, ACP-ALL-CREQ-07)
    const withdrawn = wire.findIndex(
      (w) => w.dir === 'in' && w.msg.method === '$/cancel_request' && w.msg.params?.requestId === permReq.msg.id,
    );
    expect(withdrawn).toBeGreaterThan(0);
    expect(withdrawn).toBeLessThan(answer);
    if (v === 2) {
      const idle = wire.findIndex((w) => isUpdate(w) && updateOf(w).state === 'idle');
      expect(updateOf(wire[idle])).toMatchObject({ stopReason: 'cancelled' });
      expect(idle).toBeLessThan(closeResp);
    } else {
      expect(wire[responseIndex(wire, 'session/prompt')].msg.result).toEqual({ stopReason: 'cancelled' });
    }
    expect(wire.some((w) => w.dir === 'in' && 'error' in w.msg)).toBe(false);
    expect(problems).toEqual([]);
    tap.assertAllValid();
  });

  it('cancel with no turn running sends a notification and changes nothing (ACP-V2-CANCEL-05)', async () => {
    const { conn, tap, wire, roundTrip } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt('hi');
    const n = wire.length;
    s.cancel();
    await roundTrip();
    // between the cancel and the probe's round trip, nothing came back
    expect(wire.slice(n).map((w) => `${w.dir}:${w.msg.method}`)).toEqual([
      'out:session/cancel',
      'out:_e2e/echo',
      'in:undefined',
    ]);
    expect((await s.prompt('again')).stopReason).toBe('end_turn');
    tap.assertAllValid();
  });
});

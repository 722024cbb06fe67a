// The agent runtime over real pipes: the prompt lifecycle and cancellation, in both versions.
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentText,
  openSession,
  promptTurn,
  roundTrip,
  stderrLine,
  startAgent,
  text,
  type Harness,
  type Msg,
} from '../../../test/support/agent-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  const last = h;
  h = undefined;
  await last?.close();
  // every message the agent sent in the test is valid against the official schema
  last?.assertAgentMessagesValid();
});

const isResponse = (id: unknown) => (m: Msg) => m.id === id && m.method === undefined;

describe.each([1, 2] as const)('prompt turn, protocol v%i', (version) => {
  it('streams the turn and sends nothing of it after its end', async () => {
    h = startAgent();
    const sessionId = await openSession(h, version);
    const res = await h.request('session/prompt', { sessionId, prompt: text('late') });
    await stderrLine(h, /^late-sent$/m);
    await roundTrip(h);
    const ups = h.updates(sessionId);
    expect(agentText(ups)).toBe('before end');
    expect(JSON.stringify(h.received)).not.toContain('AFTER END');
    if (version === 1) {
      expect(res).toEqual({ stopReason: 'end_turn' });
    } else {
      expect(res.messageId).toBeTypeOf('string');
      const idle = ups.findLast((u) => u.sessionUpdate === 'state_update');
      expect(idle).toMatchObject({ state: 'idle', stopReason: 'end_turn' });
    }
  });

  it('ends `cancelled` when a permission is pending, cancelling the permission request', async () => {
    h = startAgent();
    const sessionId = await openSession(h, version);
    let permissionId: unknown;
    const asked = h.waitFor((m) => m.method === 'session/request_permission');
    const p = h.request('session/prompt', { sessionId, prompt: text('permission') });
    const req = await asked;
    permissionId = req.id;
    if (version === 2) expect(req.params.title).toBe('Write /tmp/x?');
    else expect(req.params.toolCall.toolCallId).toBeTypeOf('string');
    h.peer.notify('session/cancel', { sessionId });
    const cancelReq = await h.waitFor((m) => m.method === '$/cancel_request');
    expect(cancelReq.params.requestId).toBe(permissionId);
    const res = await p;
    if (version === 1) {
      expect(res).toEqual({ stopReason: 'cancelled' });
    } else {
      const idle = await h.waitFor(
        (m) => m.params?.update?.sessionUpdate === 'state_update' && m.params.update.state === 'idle',
      );
      expect(idle.params.update.stopReason).toBe('cancelled');
      const ups = h
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'state_update')
        .map((u) => u.state);
      expect(ups).toEqual(['running', 'requires_action', 'idle']);
    }
    // the turn's own wrap-up (tool failed, message) came before the end; nothing after it
    await roundTrip(h);
    const endIndex =
      version === 1
        ? h.received.findIndex(isResponse(h.sent.find((m) => m.method === 'session/prompt')!.id))
        : h.received.findIndex((m) => m.params?.update?.state === 'idle');
    expect(h.received.slice(endIndex + 1).filter((m) => m.method === 'session/update')).toEqual([]);
    expect(agentText(h.updates(sessionId))).toBe('permission: cancelled');
  });

  it('withdraws a permission request still pending when the turn ends (ACP-V2-CANCEL-03/09)', async () => {
    h = startAgent();
    const sessionId = await openSession(h, version);
    const asked = h.waitFor((m) => m.method === 'session/request_permission');
    const p = h.request('session/prompt', { sessionId, prompt: text('strayperm') }).catch((e) => e);
    const req = await asked;
    // the turn ended (with the author's error) while the question was open: the client is told to drop it
    const cancelReq = await h.waitFor((m) => m.method === '$/cancel_request' && m.params?.requestId === req.id, 3000);
    const res = await p;
    const end =
      version === 1
        ? h.received.findIndex(isResponse(h.sent.find((m) => m.method === 'session/prompt')!.id))
        : (await h.waitFor((m) => m.params?.update?.state === 'idle'),
          h.received.findIndex((m) => m.params?.update?.state === 'idle'));
    // withdrawn before the turn's final message, so no client shows a question for a finished turn
    expect(h.received.indexOf(cancelReq)).toBeLessThan(end);
    if (version === 1) expect(res.code).toBe(-32603);
    else expect(h.received[end].params.update).toMatchObject({ stopReason: 'error', error: { message: 'gave up' } });
  });

  it('turns a thrown abort error into `cancelled`', async () => {
    h = startAgent();
    const sessionId = await openSession(h, version);
    const p = h.request('session/prompt', { sessionId, prompt: text('abort') });
    await roundTrip(h); // the turn has started
    h.peer.notify('session/cancel', { sessionId });
    const res = await p;
    if (version === 1) expect(res.stopReason).toBe('cancelled');
    else await h.waitFor((m) => m.params?.update?.state === 'idle' && m.params.update.stopReason === 'cancelled');
    expect(h.received.some((m) => m.error && m.error.code !== -32601)).toBe(false); // -32601: the round-trip probe
  });

  it('ends a cancelled turn whose author ignores the signal, and drops its late output', async () => {
    h = startAgent({ env: { AGENT_CANCEL_TIMEOUT: '300', AGENT_STUBBORN_MS: '1000' } });
    const sessionId = await openSession(h, version);
    const p = h.request('session/prompt', { sessionId, prompt: text('stubborn') });
    await h.waitFor((m) => JSON.stringify(m).includes('thinking hard'));
    const t0 = Date.now();
    h.peer.notify('session/cancel', { sessionId });
    const res = await p;
    if (version === 1) expect(res.stopReason).toBe('cancelled');
    else await h.waitFor((m) => m.params?.update?.stopReason === 'cancelled');
    expect(Date.now() - t0).toBeLessThan(1200);
    await stderrLine(h, /^stubborn-done$/m);
    await roundTrip(h);
    expect(JSON.stringify(h.received)).not.toContain('too late');
  });

  it('a permission answer that was never offered is not approval (ACP-V2-PERM-06)', async () => {
    h = startAgent();
    const sessionId = await openSession(h, version);
    h.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'yolo' } });
    await promptTurn(h, sessionId, text('permission'));
    expect(agentText(h.updates(sessionId))).toBe('permission: cancelled');
    h.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    await promptTurn(h, sessionId, text('permission'));
    expect(agentText(h.updates(sessionId))).toContain('permission: allow');
  });

  it('answers a malformed request with a precise -32602 and the session goes on', async () => {
    h = startAgent();
    const sessionId = await openSession(h, version);
    const e1 = await h.request('session/new', { cwd: 'relative/dir', mcpServers: [] }).catch((x) => x);
    expect(e1.code).toBe(-32602);
    expect(e1.message).toContain('params.cwd');
    const e2 = await h
      .request('session/new', { cwd: '/tmp', mcpServers: [], additionalDirectories: ['/ok', 'nope'] })
      .catch((x) => x);
    expect(e2.code).toBe(-32602);
    expect(e2.message).toContain('params.additionalDirectories[1]');
    const e3 = await h.request('session/prompt', { sessionId, prompt: 'not an array' }).catch((x) => x);
    expect(e3.code).toBe(-32602);
    expect(e3.message).toContain('params.prompt');
    const e4 = await h.request('session/prompt', { sessionId: 'sess_nope', prompt: text('hello') }).catch((x) => x);
    expect(e4.code).toBe(-32002);
    expect(e4.data).toEqual({ sessionId: 'sess_nope' });
    const { response } = await promptTurn(h, sessionId, text('hello'));
    expect(response).toBeTruthy();
    expect(agentText(h.updates(sessionId))).toBe('Hello, world');
  });

  it('mints unique session and message ids', async () => {
    h = startAgent();
    const a = await openSession(h, version);
    const b = (await h.request('session/new', { cwd: '/tmp', mcpServers: [] })).sessionId;
    expect(a).not.toBe(b);
    for (const t of ['hello', 'hello', 'hello']) await promptTurn(h, a, text(t));
    const ids = h
      .updates(a)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.messageId);
    expect(new Set(ids).size).toBe(3);
  });
});

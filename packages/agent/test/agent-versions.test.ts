// The agent runtime over real pipes: what differs between v1 and v2 turns (busy prompts, errors, stop reasons, ordering).
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentText,
  initParams,
  openSession,
  roundTrip,
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

describe('v1 specifics', () => {
  it('answers after every update of the turn', async () => {
    h = startAgent({ env: { AGENT_VALIDATE: '1' } });
    const sessionId = await openSession(h, 1);
    await h.request('session/prompt', { sessionId, prompt: text('stream 5 5') });
    const id = h.sent.find((m) => m.method === 'session/prompt')!.id;
    const respAt = h.received.findIndex(isResponse(id));
    const lastUpdate = h.received.findLastIndex((m) => m.method === 'session/update');
    expect(respAt).toBeGreaterThan(lastUpdate);
    expect(agentText(h.updates(sessionId))).toBe('chunk 0;chunk 1;chunk 2;chunk 3;chunk 4;');
  });

  it('fails the prompt with the cause when the author throws (no `error` stop reason in v1)', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 1);
    const e = await h.request('session/prompt', { sessionId, prompt: text('fail') }).catch((x) => x);
    expect(e.code).toBe(-32603);
    expect(e.message).toContain('disk on fire');
  });

  it('reports custom stop reasons as end_turn', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 1);
    expect(await h.request('session/prompt', { sessionId, prompt: text('custom') })).toEqual({
      stopReason: 'end_turn',
    });
  });

  it('queues a prompt that arrives during a turn; session/cancel answers it `cancelled`', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 1);
    const order: string[] = [];
    const a = h.request('session/prompt', { sessionId, prompt: text('stream 3 20') }).then((r) => (order.push('a'), r));
    const b = h.request('session/prompt', { sessionId, prompt: text('hello') }).then((r) => (order.push('b'), r));
    expect(await a).toEqual({ stopReason: 'end_turn' });
    expect(await b).toEqual({ stopReason: 'end_turn' });
    expect(order).toEqual(['a', 'b']);
    expect(agentText(h.updates(sessionId))).toBe('chunk 0;chunk 1;chunk 2;Hello, world');
    const c = h.request('session/prompt', { sessionId, prompt: text('stream 100 20') });
    const d = h.request('session/prompt', { sessionId, prompt: text('hello') });
    await h.waitFor(
      (m) => m.params?.sessionId === sessionId && agentText(h.updates(sessionId)).includes('Hello, worldchunk 0;'),
    );
    h.peer.notify('session/cancel', { sessionId });
    expect(await c).toEqual({ stopReason: 'cancelled' });
    expect(await d).toEqual({ stopReason: 'cancelled' });
  });

  it('replays the user message only on load, never echoes it live', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 1);
    await h.request('session/prompt', { sessionId, prompt: text('hello') });
    expect(h.updates(sessionId).some((u) => u.sessionUpdate === 'user_message_chunk')).toBe(false);
  });
});

describe('v2 specifics', () => {
  it('orders: response {messageId}, user_message echo, running, output, idle end_turn', async () => {
    // validateOutgoing on: the agent checks its own output against the schema too
    h = startAgent({ env: { AGENT_VALIDATE: '1' } });
    const sessionId = await openSession(h, 2);
    const res = await h.request('session/prompt', { sessionId, prompt: text('hello') });
    await h.waitFor((m) => m.params?.update?.state === 'idle');
    const id = h.sent.find((m) => m.method === 'session/prompt')!.id;
    const seq = h.received
      .filter((m) => m.id === id || m.params?.sessionId === sessionId)
      .map((m) =>
        m.id === id
          ? 'response'
          : m.params.update.sessionUpdate === 'state_update'
            ? `state:${m.params.update.state}`
            : m.params.update.sessionUpdate,
      );
    expect(seq).toEqual([
      'response',
      'user_message',
      'state:running',
      'agent_message_chunk',
      'agent_message_chunk',
      'state:idle',
    ]);
    const echo = h.updates(sessionId).find((u) => u.sessionUpdate === 'user_message');
    expect(echo).toEqual({ sessionUpdate: 'user_message', messageId: res.messageId, content: text('hello') });
    expect(h.updates(sessionId).at(-1)).toMatchObject({ state: 'idle', stopReason: 'end_turn' });
  });

  it('ends a failing turn with idle `error` + error object, never a failed prompt response (ACP-V2-LIFE-12)', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    const res = await h.request('session/prompt', { sessionId, prompt: text('fail') });
    expect(res.messageId).toBeTypeOf('string');
    const idle = await h.waitFor((m) => m.params?.update?.state === 'idle');
    expect(idle.params.update.stopReason).toBe('error');
    expect(idle.params.update.error.message).toContain('disk on fire');
    expect(idle.params.update.error.code).toBeTypeOf('number');
  });

  it('passes custom stop reasons through', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    await h.request('session/prompt', { sessionId, prompt: text('custom') });
    const idle = await h.waitFor((m) => m.params?.update?.state === 'idle');
    expect(idle.params.update.stopReason).toBe('_scripted_stop');
  });

  it('holds prompts during a turn and inserts them in arrival order', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    const r1 = h.request('session/prompt', { sessionId, prompt: text('stream 3 30') });
    const r2 = h.request('session/prompt', { sessionId, prompt: text('hello') });
    const r3 = h.request('session/prompt', { sessionId, prompt: text('custom') });
    const [a, b, c] = await Promise.all([r1, r2, r3]);
    expect(new Set([a.messageId, b.messageId, c.messageId]).size).toBe(3);
    await h.waitFor((m) => m.params?.update?.stopReason === '_scripted_stop');
    const ids = h.sent.filter((m) => m.method === 'session/prompt').map((m) => m.id);
    const at = (id: unknown) => h!.received.findIndex(isResponse(id));
    const idles = h.received.map((m, i) => (m.params?.update?.state === 'idle' ? i : -1)).filter((i) => i >= 0);
    expect(idles.length).toBe(3);
    // a held prompt's response waits for its insertion: after the previous turn's idle
    expect(at(ids[0])).toBeLessThan(idles[0]);
    expect(at(ids[1])).toBeGreaterThan(idles[0]);
    expect(at(ids[1])).toBeLessThan(idles[1]);
    expect(at(ids[2])).toBeGreaterThan(idles[1]);
    const echoes = h
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === 'user_message')
      .map((u) => u.content[0].text);
    expect(echoes).toEqual(['stream 3 30', 'hello', 'custom']);
  });

  it('answers held prompts -32800 on session/cancel and on $/cancel_request', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    const running = await h.request('session/prompt', { sessionId, prompt: text('stream 200 20') });
    expect(running.messageId).toBeTypeOf('string');
    const ac = new AbortController();
    const withdrawn = h.peer
      .request('session/prompt', { sessionId, prompt: text('hello') }, { signal: ac.signal, onAbort: 'wait' })
      .catch((x) => x);
    const held = h.request('session/prompt', { sessionId, prompt: text('hello') }).catch((x) => x);
    await roundTrip(h); // both prompts are held
    ac.abort();
    expect((await withdrawn).code).toBe(-32800);
    h.peer.notify('session/cancel', { sessionId });
    expect((await held).code).toBe(-32800);
    const idle = await h.waitFor((m) => m.params?.update?.state === 'idle');
    expect(idle.params.update.stopReason).toBe('cancelled');
    // no held prompt was inserted
    expect(h.updates(sessionId).filter((u) => u.sessionUpdate === 'user_message').length).toBe(1);
    // session/cancel does not affect later prompts
    await h.request('session/prompt', { sessionId, prompt: text('hello') });
    await h.waitFor((m) => m.params?.update?.stopReason === 'end_turn');
  });

  describe('requires_action (ACP-V2-LIFE-07)', () => {
    const states = (sessionId: string) =>
      h!
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'state_update')
        .map((u) => u.state);
    /** Answers permission requests only when the test says so. */
    function heldAnswers() {
      const pending: Array<(r: unknown) => void> = [];
      h!.onPermission = () => new Promise((r) => pending.push(r));
      return {
        pending,
        allow: (i: number) => pending[i]({ outcome: { outcome: 'selected', optionId: 'allow' } }),
      };
    }

    it('a resume snapshot while a permission is pending says requires_action, not running', async () => {
      h = startAgent();
      const sessionId = await openSession(h, 2);
      const answers = heldAnswers();
      const asked = h.waitFor((m) => m.method === 'session/request_permission');
      await h.request('session/prompt', { sessionId, prompt: text('permission') });
      await asked;
      await h.request('session/resume', { sessionId, cwd: '/tmp' });
      expect(states(sessionId)).toEqual(['running', 'requires_action', 'requires_action']);
      answers.allow(0);
      const idle = await h.waitFor((m) => m.params?.update?.state === 'idle');
      expect(idle.params.update.stopReason).toBe('end_turn');
      expect(states(sessionId)).toEqual(['running', 'requires_action', 'requires_action', 'running', 'idle']);
      expect(agentText(h.updates(sessionId))).toBe('permission: allow');
    });

    it('stays requires_action until the last of several blocking questions is answered', async () => {
      h = startAgent();
      const sessionId = await openSession(h, 2);
      const answers = heldAnswers();
      await h.request('session/prompt', { sessionId, prompt: text('permission2') });
      await h.waitFor(
        () =>
          answers.pending.length === 2 &&
          h!.received.filter((m) => m.method === 'session/request_permission').length === 2,
      );
      answers.allow(0);
      await roundTrip(h);
      // answering one request does not imply running
      expect(states(sessionId)).toEqual(['running', 'requires_action']);
      answers.allow(1);
      await h.waitFor((m) => m.params?.update?.state === 'idle');
      expect(states(sessionId)).toEqual(['running', 'requires_action', 'running', 'idle']);
      expect(agentText(h.updates(sessionId))).toBe('answers: allow,allow');
    });

    it('a non-blocking question leaves the state running', async () => {
      h = startAgent();
      const sessionId = await openSession(h, 2);
      const answers = heldAnswers();
      await h.request('session/prompt', { sessionId, prompt: text('nbpermission') });
      await h.waitFor((m) => m.method === 'session/request_permission');
      await roundTrip(h);
      expect(states(sessionId)).toEqual(['running']);
      answers.allow(0);
      await h.waitFor((m) => m.params?.update?.state === 'idle');
      expect(states(sessionId)).toEqual(['running', 'idle']);
      expect(agentText(h.updates(sessionId))).toBe('answers: allow');
    });
  });

  it('rejects an empty prompt with -32602 without inserting it', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    const e = await h.request('session/prompt', { sessionId, prompt: [] }).catch((x) => x);
    expect(e.code).toBe(-32602);
    expect(h.updates(sessionId).some((u) => u.sessionUpdate === 'user_message')).toBe(false);
  });

  it('cancels a tool call via tool_call/cancel; unknown or final calls get -32602', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    await h.request('session/prompt', { sessionId, prompt: text('toolcancel') });
    const tc = await h.waitFor((m) => m.params?.update?.sessionUpdate === 'tool_call_update');
    const toolCallId = tc.params.update.toolCallId;
    expect(await h.request('tool_call/cancel', { sessionId, toolCallId })).toEqual({});
    await h.waitFor(
      (m) => m.params?.update?.sessionUpdate === 'tool_call_update' && m.params.update.status === 'cancelled',
    );
    const again = await h.request('tool_call/cancel', { sessionId, toolCallId }).catch((x) => x);
    expect(again.code).toBe(-32602);
    expect(again.message).toContain('params.toolCallId');
    const unknown = await h.request('terminal/cancel', { sessionId, terminalId: 'term-x' }).catch((x) => x);
    expect(unknown.code).toBe(-32602);
    await h.waitFor((m) => m.params?.update?.stopReason === 'end_turn');
  });

  it('rejects MCP transports the agent does not support with -32602 (ACP-V2-SESS-03)', async () => {
    h = startAgent();
    await h.request('initialize', initParams(2));
    const e = await h
      .request('session/new', {
        cwd: '/tmp',
        mcpServers: [{ type: 'http', name: 'web', url: 'https://example.invalid/mcp', headers: [] }],
      })
      .catch((x) => x);
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('params.mcpServers[0].type');
    const ok = await h.request('session/new', {
      cwd: '/tmp',
      mcpServers: [{ type: 'stdio', name: 'tools', command: '/bin/true', args: [], env: [] }],
    });
    expect(ok.sessionId).toBeTypeOf('string');
  });

  it('has no v1-only methods', async () => {
    h = startAgent();
    const sessionId = await openSession(h, 2);
    const e = await h.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] }).catch((x) => x);
    expect(e.code).toBe(-32601);
    const e2 = await h.request('session/set_mode', { sessionId, modeId: 'code' }).catch((x) => x);
    expect(e2.code).toBe(-32601);
  });
});

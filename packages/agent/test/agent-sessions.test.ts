// Session management over real processes: list/close/delete, config options and v1 modes.
import { describe, expect, it } from 'vitest';
import {
  useAgents,
  agentText,
  initParams,
  openSession,
  roundTrip,
  tempDataDir,
  text,
} from '../../../test/support/agent-harness.js';

const start = useAgents();

describe.each([1, 2] as const)('session management, protocol v%i', (version) => {
  it('lists sessions with an exact cwd filter and opaque cursor paging', async () => {
    const h = start();
    await h.request('initialize', initParams(version));
    const ids: string[] = [];
    for (let i = 0; i < 55; i++)
      ids.push(
        (await h.request('session/new', { cwd: i % 5 === 0 ? '/work/b' : '/work/a', mcpServers: [] })).sessionId,
      );
    const p1 = await h.request('session/list', {});
    expect(p1.sessions.length).toBe(50);
    expect(p1.nextCursor).toBeTypeOf('string');
    const p2 = await h.request('session/list', { cursor: p1.nextCursor });
    expect(p2.sessions.length).toBe(5);
    expect(p2.nextCursor ?? null).toBeNull();
    expect(new Set([...p1.sessions, ...p2.sessions].map((s: any) => s.sessionId))).toEqual(new Set(ids));
    const b = await h.request('session/list', { cwd: '/work/b' });
    expect(b.sessions.length).toBe(11);
    expect(b.sessions.every((s: any) => s.cwd === '/work/b')).toBe(true);
    expect((await h.request('session/list', { cwd: '/work' })).sessions).toEqual([]);
    const bad = await h.request('session/list', { cursor: 'garbage' }).catch((x) => x);
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('params.cursor');
  });

  it('titles, closes and deletes sessions', async () => {
    const h = start();
    const sessionId = await openSession(h, version);
    await h.request('session/prompt', { sessionId, prompt: text('title My session') });
    const listed = (await h.request('session/list', {})).sessions.find((s: any) => s.sessionId === sessionId);
    expect(listed.title).toBe('My session');
    expect(await h.request('session/close', { sessionId })).toEqual({});
    const afterClose = await h.request('session/prompt', { sessionId, prompt: text('hello') }).catch((x) => x);
    expect(afterClose.code).toBe(-32002);
    const unknownClose = await h.request('session/close', { sessionId: 'sess_nope' }).catch((x) => x);
    if (version === 2) expect(unknownClose).toEqual({});
    else expect(unknownClose.code).toBe(-32002);
    expect(await h.request('session/delete', { sessionId })).toEqual({});
    expect((await h.request('session/list', {})).sessions.some((s: any) => s.sessionId === sessionId)).toBe(false);
    expect(await h.request('session/delete', { sessionId })).toEqual({});
  });

  it('closing a session answers its held prompts (v2 -32800, ACP-V2-LIFE-13; v1 `cancelled`) without running them', async () => {
    const h = start();
    const sessionId = await openSession(h, version);
    const running = h.request('session/prompt', { sessionId, prompt: text('stream 1000 10') });
    await h.waitFor((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk');
    const held = h.request('session/prompt', { sessionId, prompt: text('hello') }).catch((x) => x);
    await roundTrip(h); // the agent holds the second prompt
    await h.request('session/close', { sessionId });
    const answer = await held;
    if (version === 2) expect(answer.code).toBe(-32800);
    else expect(answer).toEqual({ stopReason: 'cancelled' });
    await running;
    // the held prompt never ran: no echo (v2), no reply
    expect(agentText(h.updates(sessionId))).not.toContain('Hello');
    expect(h.updates(sessionId).filter((u) => u.sessionUpdate === 'user_message').length).toBe(version === 2 ? 1 : 0);
  });

  it('closing a session with a running turn ends it `cancelled` before the close response', async () => {
    const h = start();
    const sessionId = await openSession(h, version);
    const p = h.request('session/prompt', { sessionId, prompt: text('stream 1000 10') });
    await h.waitFor((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk');
    await h.request('session/close', { sessionId });
    const closeId = h.sent.at(-1)!.id;
    const closeAt = h.received.findIndex((m) => m.id === closeId);
    if (version === 1) {
      expect(await p).toEqual({ stopReason: 'cancelled' });
    } else {
      await p;
      const idleAt = h.received.findIndex((m) => m.params?.update?.stopReason === 'cancelled');
      expect(idleAt).toBeGreaterThan(-1);
      expect(idleAt).toBeLessThan(closeAt);
    }
    await roundTrip(h);
    expect(h.received.slice(closeAt).filter((m) => m.method === 'session/update')).toEqual([]);
  });

  it('sets config options (full list back; -32602 and unchanged on bad input) and restores them', async () => {
    const dataDir = tempDataDir();
    const h = start({ dataDir });
    const sessionId = await openSession(h, version);
    const set =
      version === 2
        ? { sessionId, configId: 'mode', type: 'id', value: 'code' }
        : { sessionId, configId: 'mode', value: 'code' };
    const r = await h.request('session/set_config_option', set);
    expect(r.configOptions.find((o: any) => (o.configId ?? o.id) === 'mode').currentValue).toBe('code');
    const bad = await h.request('session/set_config_option', { ...set, value: 'yolo' }).catch((x) => x);
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('params.value');
    const badId = await h.request('session/set_config_option', { ...set, configId: 'nope' }).catch((x) => x);
    expect(badId.code).toBe(-32602);
    expect(badId.message).toContain('params.configId');
    if (version === 1) {
      expect(await h.request('session/set_mode', { sessionId, modeId: 'ask' })).toEqual({});
      const badMode = await h.request('session/set_mode', { sessionId, modeId: 'nope' }).catch((x) => x);
      expect(badMode.code).toBe(-32602);
      expect(badMode.message).toContain('params.modeId');
    }
    await h.close();
    const h2 = start({ dataDir });
    await h2.request('initialize', initParams(version));
    const res = await h2.request('session/resume', { sessionId, cwd: '/tmp', mcpServers: [] });
    const mode = res.configOptions.find((o: any) => (o.configId ?? o.id) === 'mode');
    expect(mode.currentValue).toBe(version === 1 ? 'ask' : 'code');
  });
});

// What a restore sends and when, over real agent processes: v1 session/load puts everything that
// describes the session before its response and nothing after it; v2 replays prime each message so
// a client resuming twice ends with one copy of everything.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, SessionState, type ClientConnection } from '../../client/src/index.js';
import {
  fixturePath,
  initParams,
  openSession,
  tempDataDir,
  text,
  useAgents,
} from '../../../test/support/agent-harness.js';

const start = useAgents();
const dirs: string[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dataDir = (): string => {
  const d = tempDataDir();
  dirs.push(d);
  return d;
};

describe('v1 session/load: nothing for the session after the response', () => {
  it('available commands (and the replay) go out before the response; a session/list round trip after it sees nothing of the session', async () => {
    const dir = dataDir();
    const a = start({ dataDir: dir });
    const sessionId = await openSession(a, 1);
    await a.request('session/prompt', { sessionId, prompt: text('hello') });
    await a.close();

    const h = start({ dataDir: dir });
    await h.request('initialize', initParams(1));
    const res = await h.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    const loadId = h.sent.at(-1)!.id;
    await h.request('session/list', {});
    const listId = h.sent.at(-1)!.id;
    const loadAt = h.received.findIndex((m) => m.id === loadId && !m.method);
    const listAt = h.received.findIndex((m) => m.id === listId && !m.method);
    const before = h.received
      .slice(0, loadAt)
      .filter((m) => m.params?.sessionId === sessionId)
      .map((m) => m.params.update.sessionUpdate);
    expect(before).toContain('available_commands_update');
    expect(before).toContain('agent_message_chunk');
    expect(res.modes.currentModeId).toBe('ask');
    // between the load response and the list answer: nothing for the session
    expect(h.received.slice(loadAt + 1, listAt).filter((m) => m.method === 'session/update')).toEqual([]);
  });

  it('session/new still sends its commands right after the response (the client learns the id from it)', async () => {
    const h = start({ dataDir: dataDir() });
    const sessionId = await openSession(h, 1);
    const newId = h.sent.at(-1)!.id;
    await h.request('session/list', {});
    const listId = h.sent.at(-1)!.id;
    const newAt = h.received.findIndex((m) => m.id === newId && !m.method);
    const listAt = h.received.findIndex((m) => m.id === listId && !m.method);
    const after = h.received.slice(newAt + 1, listAt).filter((m) => m.params?.sessionId === sessionId);
    expect(after.map((m) => m.params.update.sessionUpdate)).toEqual(['available_commands_update']);
  });
});

describe('v2 replay primers', () => {
  it('a client resuming twice with replay ends with exactly one copy of every message (client runtime, real agent process)', async () => {
    const dir = dataDir();
    const env = { ...process.env, ACP_KIT_DATA_DIR: dir } as Record<string, string>;
    const open = async () => {
      const c = await connect({
        command: process.execPath,
        args: [fixturePath('agent-scripted.mjs')],
        protocol: 2,
        env,
        onStderr: () => undefined,
      });
      conns.push(c);
      return c;
    };
    const live = await open();
    const s = await live.newSession({ cwd: '/tmp' });
    await s.prompt('hello');
    await s.prompt('hello');
    const liveMessages = s.state.timeline
      .filter((e) => e.kind === 'message')
      .map((e: any) => [e.role, e.messageId, e.text]);
    await live.close();

    // one client view kept across both resumes, as an editor that already shows the conversation
    const view = new SessionState(s.sessionId);
    const c = await open();
    const messages = (st: SessionState) =>
      st.timeline.filter((e) => e.kind === 'message').map((e: any) => [e.role, e.messageId, e.text]);
    for (let i = 0; i < 2; i++) {
      const wire: any[] = [];
      await c.resumeSession(s.sessionId, { cwd: '/tmp', replay: true, onUpdate: (u) => (wire.push(u), view.apply(u)) });
      // a whole-message primer with `content: []` right before the first chunk of each agent message
      const firstChunks = wire.flatMap((u, j) =>
        u.sessionUpdate === 'agent_message_chunk' &&
        !wire.slice(0, j).some((p) => p.sessionUpdate === 'agent_message_chunk' && p.messageId === u.messageId)
          ? [j]
          : [],
      );
      expect(firstChunks.length).toBe(2);
      for (const j of firstChunks)
        expect(wire[j - 1]).toEqual({ sessionUpdate: 'agent_message', messageId: wire[j].messageId, content: [] });
    }
    expect(liveMessages.length).toBe(4);
    expect(messages(view)).toEqual(liveMessages);
    expect(
      messages(view)
        .filter(([role]) => role === 'agent')
        .map(([, , t]) => t),
    ).toEqual(['Hello, world', 'Hello, world']);
  });
});

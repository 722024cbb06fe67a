// Session restore over real processes: v1 load / v2 resume replay from the JSONL store, the
// SIGKILL test and torn lines.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  useAgents,
  agentText,
  initParams,
  openSession,
  promptTurn,
  tempDataDir,
  text,
} from '../../../test/support/agent-harness.js';

const start = useAgents();

/** One turn recorded with `recordVersion`, then the agent process is stopped. */
async function recordSession(dataDir: string, recordVersion: 1 | 2): Promise<string> {
  const h = start({ dataDir });
  const sessionId = await openSession(h, recordVersion);
  h.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
  await h.request('session/prompt', { sessionId, prompt: text('hello') });
  await h.request('session/prompt', { sessionId, prompt: text('permission') });
  if (recordVersion === 2)
    await h.waitFor(
      (m) => m.params?.update?.state === 'idle' && h.updates(sessionId).filter((u) => u.state === 'idle').length === 2,
    );
  await h.close();
  return sessionId;
}

describe.each([
  [1, 2],
  [2, 1],
] as const)('replay of a session recorded in v%i to a v%i client', (recordVersion, replayVersion) => {
  it(
    replayVersion === 1
      ? 'session/load replays everything before its response'
      : 'session/resume replayFrom start replays, then a state snapshot, then the response',
    async () => {
      const dataDir = tempDataDir();
      const sessionId = await recordSession(dataDir, recordVersion);
      const h = start({ dataDir });
      await h.request('initialize', initParams(replayVersion));
      const params = { sessionId, cwd: '/tmp', mcpServers: [] };
      const res =
        replayVersion === 1
          ? await h.request('session/load', params)
          : await h.request('session/resume', { ...params, replayFrom: { type: 'start' } });
      const reqId = h.sent.at(-1)!.id;
      const respAt = h.received.findIndex((m) => m.id === reqId);
      const before = h.received
        .slice(0, respAt)
        .filter((m) => m.method === 'session/update')
        .map((m) => m.params.update);
      expect(
        h.received
          .slice(respAt)
          .filter(
            (m) => m.method === 'session/update' && m.params.update.sessionUpdate !== 'available_commands_update',
          ),
      ).toEqual([]);
      expect(agentText(before)).toBe('Hello, worldpermission: allow');
      const user = before.filter(
        (u) => u.sessionUpdate === (replayVersion === 1 ? 'user_message_chunk' : 'user_message'),
      );
      expect(user.map((u) => (Array.isArray(u.content) ? u.content[0].text : u.content.text))).toEqual([
        'hello',
        'permission',
      ]);
      if (replayVersion === 2) {
        expect(new Set(user.map((u) => u.messageId)).size).toBe(2);
        expect(before.at(-1)).toEqual({ sessionUpdate: 'state_update', state: 'idle' });
        expect(before.filter((u) => u.sessionUpdate === 'state_update').length).toBe(1);
        expect(res.configOptions.map((o: any) => o.configId)).toEqual(['mode', 'fast']);
      } else {
        expect(before.some((u) => u.sessionUpdate === 'tool_call')).toBe(true);
        expect(res.modes.currentModeId).toBe('ask');
      }
      // the session continues after the replay
      await h.request('session/prompt', { sessionId, prompt: text('hello') });
    },
  );
});

describe.each([1, 2] as const)('the user message in v%i: live vs replay', (version) => {
  // v1: user_message_chunk is for history replay only; a v1 client renders its own prompt, so a
  // live echo would show it twice. v2: the `user_message` echo is live (ACP-V2-LIFE-04).
  it(
    version === 1
      ? 'is not echoed live, and session/load replays it with its messageId'
      : 'is echoed live with the response messageId, and resume replays it',
    async () => {
      const dataDir = tempDataDir();
      const h = start({ dataDir });
      const sessionId = await openSession(h, version);
      const r1 = await promptTurn(h, sessionId, text('hello'));
      const r2 = await promptTurn(h, sessionId, [...text('two'), ...text('blocks')]);
      const live = h
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'user_message' || u.sessionUpdate === 'user_message_chunk');
      if (version === 1) expect(live).toEqual([]);
      else {
        expect(live).toEqual([
          { sessionUpdate: 'user_message', messageId: r1.response.messageId, content: text('hello') },
          {
            sessionUpdate: 'user_message',
            messageId: r2.response.messageId,
            content: [...text('two'), ...text('blocks')],
          },
        ]);
      }
      await h.close();

      const h2 = start({ dataDir });
      await h2.request('initialize', initParams(version));
      const params = { sessionId, cwd: '/tmp', mcpServers: [] };
      if (version === 1) await h2.request('session/load', params);
      else await h2.request('session/resume', { ...params, replayFrom: { type: 'start' } });
      const replayed = h2
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'user_message' || u.sessionUpdate === 'user_message_chunk');
      if (version === 1) {
        expect(replayed.map((u) => u.sessionUpdate)).toEqual([
          'user_message_chunk',
          'user_message_chunk',
          'user_message_chunk',
        ]);
        expect(replayed.map((u) => u.content.text)).toEqual(['hello', 'two', 'blocks']);
        const ids = replayed.map((u) => u.messageId);
        expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
        // the two chunks of the second prompt are one message, the first prompt another
        expect(ids[1]).toBe(ids[2]);
        expect(ids[0]).not.toBe(ids[1]);
      } else {
        expect(replayed).toEqual(live);
      }
    },
  );
});

describe('restore without replay', () => {
  it('v1 session/resume and v2 resume without replayFrom replay nothing; v2 still sends a state snapshot', async () => {
    const dataDir = tempDataDir();
    const sessionId = await recordSession(dataDir, 2);
    for (const v of [1, 2] as const) {
      const h = start({ dataDir });
      await h.request('initialize', initParams(v));
      await h.request('session/resume', { sessionId, cwd: '/tmp', mcpServers: [] });
      const ups = h.updates(sessionId).filter((u) => u.sessionUpdate !== 'available_commands_update');
      expect(ups).toEqual(v === 2 ? [{ sessionUpdate: 'state_update', state: 'idle' }] : []);
      await h.close();
    }
  });

  it('rejects an unsupported replayFrom with -32602 and an unknown session with -32002', async () => {
    const dataDir = tempDataDir();
    const sessionId = await recordSession(dataDir, 2);
    const h = start({ dataDir });
    await h.request('initialize', initParams(2));
    const e = await h
      .request('session/resume', { sessionId, cwd: '/tmp', replayFrom: { type: '_somewhere' } })
      .catch((x) => x);
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('params.replayFrom');
    const e2 = await h.request('session/resume', { sessionId: 'sess_unknown', cwd: '/tmp' }).catch((x) => x);
    expect(e2.code).toBe(-32002);
    expect(e2.data).toEqual({ sessionId: 'sess_unknown' });
  });
});

describe('resume of a session open on this connection', () => {
  it('v2 keeps the running turn, replays, and snapshots `running`', async () => {
    const h = start();
    const sessionId = await openSession(h, 2);
    await h.request('session/prompt', { sessionId, prompt: text('stream 20 20') });
    await h.waitFor((m) => JSON.stringify(m).includes('chunk 2;'));
    await h.request('session/resume', { sessionId, cwd: '/tmp', replayFrom: { type: 'start' } });
    const resumeId = h.sent.at(-1)!.id;
    const at = h.received.findIndex((m) => m.id === resumeId);
    const snapshot = h.received.slice(0, at).findLast((m) => m.params?.update?.sessionUpdate === 'state_update');
    expect(snapshot!.params.update).toEqual({ sessionUpdate: 'state_update', state: 'running' });
    const idle = await h.waitFor((m) => m.params?.update?.state === 'idle');
    expect(idle.params.update.stopReason).toBe('end_turn');
    const replayedUser = h.updates(sessionId).filter((u) => u.sessionUpdate === 'user_message');
    expect(replayedUser.length).toBe(2); // the live echo and its replay, same id
    expect(replayedUser[0].messageId).toBe(replayedUser[1].messageId);
  });
});

describe.each([1, 2] as const)('resume of a session open on this connection with other MCP servers, v%i', (v) => {
  // ACP-V2-RESUME-09: the request's `mcpServers` is the complete set; an open session that is
  // resumed with another set is reopened (like v1 `session/load`), so the author sees the new list
  it('reopens the session: the author sees the new list, not the one of session/new', async () => {
    const h = start();
    await h.request('initialize', initParams(v));
    const server = (name: string) =>
      v === 2
        ? { type: 'stdio', name, command: '/bin/true', args: [], env: [] }
        : { name, command: '/bin/true', args: [], env: [] };
    const { sessionId } = await h.request('session/new', { cwd: '/tmp', mcpServers: [server('first')] });
    await promptTurn(h, sessionId, text('mcp'));
    expect(agentText(h.updates(sessionId))).toBe('mcp: first');
    await h.request('session/resume', { sessionId, cwd: '/tmp', mcpServers: [server('second')] });
    const before = h.updates(sessionId).length;
    await promptTurn(h, sessionId, text('mcp'));
    expect(agentText(h.updates(sessionId).slice(before))).toBe('mcp: second');
    // omitted means none (not the earlier servers)
    await h.request('session/resume', { sessionId, cwd: '/tmp' });
    const before2 = h.updates(sessionId).length;
    await promptTurn(h, sessionId, text('mcp'));
    expect(agentText(h.updates(sessionId).slice(before2))).toBe('mcp: none');
  });
});

describe('durability', () => {
  it('replays every update the client had received after the agent was killed with SIGKILL mid-turn', async () => {
    const dataDir = tempDataDir();
    const h = start({ dataDir, process: true });
    const sessionId = await openSession(h, 1);
    void h.request('session/prompt', { sessionId, prompt: text('stream 100000 1') }).catch(() => undefined);
    await h.waitFor(() => h.updates(sessionId).length >= 200);
    h.agent.process.kill('SIGKILL');
    await h.agent.exited;
    const seen = agentText(h.updates(sessionId));
    expect(seen.length).toBeGreaterThan(0);
    const files = readdirSync(join(dataDir, 'agents', 'scripted-agent', 'sessions'));
    // the session file, its list index, and the killed agent's lock (stale: taken over below)
    expect(files.sort()).toEqual([`${sessionId}.jsonl`, `${sessionId}.lock`, `${sessionId}.meta.json`]);

    const h2 = start({ dataDir });
    await h2.request('initialize', initParams(1));
    await h2.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    const replayed = agentText(h2.updates(sessionId));
    // everything received is replayed (the store may hold a few more the client never got)
    expect(replayed.startsWith(seen)).toBe(true);
    const user = h2.updates(sessionId).filter((u) => u.sessionUpdate === 'user_message_chunk');
    expect(user.map((u) => u.content.text)).toEqual(['stream 100000 1']);
  });

  it('ignores a torn last line and keeps appending after it', async () => {
    const dataDir = tempDataDir();
    const sessionId = await recordSession(dataDir, 1);
    const file = join(dataDir, 'agents', 'scripted-agent', 'sessions', `${sessionId}.jsonl`);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(file, '{"sessionUpdate":"agent_message_chunk","messageId":"x","content":{"type":"te');
    const h = start({ dataDir });
    await h.request('initialize', initParams(1));
    await h.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    expect(agentText(h.updates(sessionId))).toBe('Hello, worldpermission: allow');
    await h.request('session/prompt', { sessionId, prompt: text('hello') });
    await h.close();
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.filter((l) => l.includes('"Hello"')).length).toBe(2);
    const h2 = start({ dataDir });
    await h2.request('initialize', initParams(1));
    await h2.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    expect(agentText(h2.updates(sessionId))).toBe('Hello, worldpermission: allowHello, world');
  });
});

/**
 * `RestoreSessionOptions.onUpdate`: the updates of a load / resume replay streamed as they are
 * applied (ACP-V1-LOAD-02/03, ACP-V2-RESUME-03/08), against a hand-written agent over real pipes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientProblem, type SessionState } from '../src/index.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';

const RAW = fileURLToPath(new URL('../../../test/fixtures/client-raw-agent.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start(v: 1 | 2) {
  const problems: ClientProblem[] = [];
  const conn = await connect({
    command: process.execPath,
    args: [RAW, `--versions=${v}`],
    onProblem: (p) => problems.push(p),
  });
  open.push(conn);
  return { conn, problems };
}

/** Records each call: the update and what the state held at that moment. */
function recorder() {
  const calls: Array<{ update: AnySessionUpdate; texts: string[]; state: SessionState }> = [];
  const onUpdate = (update: AnySessionUpdate, state: SessionState): void => {
    calls.push({ update, texts: state.messageList.map((m) => `${m.role}:${m.text}`), state });
  };
  return { calls, onUpdate };
}

describe('RestoreSessionOptions.onUpdate', () => {
  it('v1 session/load: every replayed update, in order, applied before the call, all before loadSession resolves', async () => {
    const { conn, problems } = await start(1);
    const { calls, onUpdate } = recorder();
    const s = await conn.loadSession('old-1', { cwd: '/w', onUpdate });
    expect(calls.map((c) => c.update)).toEqual([
      { sessionUpdate: 'user_message_chunk', messageId: 'h-u', content: { type: 'text', text: 'old question' } },
      { sessionUpdate: 'agent_message_chunk', messageId: 'h-a', content: { type: 'text', text: 'old answer' } },
    ]);
    // each call sees the state with that update applied, and it is the session's own state
    expect(calls.map((c) => c.texts)).toEqual([['user:old question'], ['user:old question', 'agent:old answer']]);
    expect(calls.every((c) => c.state === s.state)).toBe(true);
    // live updates after the restore are not streamed here
    await s.prompt('hello');
    expect(calls).toHaveLength(2);
    expect(problems).toEqual([]);
  });

  it('v1 resumeSession({replay: true}) goes through session/load and streams the same way', async () => {
    const { conn } = await start(1);
    const { calls, onUpdate } = recorder();
    await conn.resumeSession('old-1', { cwd: '/w', replay: true, onUpdate });
    expect(calls.map((c) => c.update.sessionUpdate)).toEqual(['user_message_chunk', 'agent_message_chunk']);
  });

  it('v2 session/resume with replay: replayed messages, then the state_update snapshot', async () => {
    const { conn, problems } = await start(2);
    const { calls, onUpdate } = recorder();
    const s = await conn.resumeSession('old-1', { cwd: '/w', replay: true, onUpdate });
    expect(calls.map((c) => c.update)).toEqual([
      { sessionUpdate: 'user_message', messageId: 'h-u', content: [{ type: 'text', text: 'old question' }] },
      { sessionUpdate: 'agent_message', messageId: 'h-a', content: [{ type: 'text', text: 'old answer' }] },
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
    ]);
    expect(calls[1]!.texts).toEqual(['user:old question', 'agent:old answer']);
    expect(s.state.foreground.state).toBe('idle');
    await s.prompt('hello');
    expect(calls).toHaveLength(3);
    expect(problems).toEqual([]);
  });

  it('v2 resume without replay streams only the snapshot', async () => {
    const { conn } = await start(2);
    const { calls, onUpdate } = recorder();
    await conn.resumeSession('old-2', { cwd: '/w', onUpdate });
    expect(calls.map((c) => c.update.sessionUpdate)).toEqual(['state_update']);
  });

  it('a throwing callback is reported as a problem and the replay still completes', async () => {
    const { conn, problems } = await start(2);
    const seen: string[] = [];
    const s = await conn.resumeSession('old-1', {
      cwd: '/w',
      replay: true,
      onUpdate: (u) => {
        seen.push(u.sessionUpdate);
        if (u.sessionUpdate === 'user_message') throw new Error('renderer broke');
      },
    });
    expect(seen).toEqual(['user_message', 'agent_message', 'state_update']);
    expect(s.state.messageList.map((m) => m.text)).toEqual(['old question', 'old answer']);
    expect(problems).toEqual([
      expect.objectContaining({
        kind: 'handler-error',
        sessionId: 'old-1',
        message: expect.stringContaining('renderer broke'),
      }),
    ]);
  });
});

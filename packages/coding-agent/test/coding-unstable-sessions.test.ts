// The built-in coding agent serves the unstable session methods through the runtime: fork (the
// copy replays the source's conversation), archive, status and set_title (a title the client set
// is not replaced by the one made from the first prompt). ACP-V1-FORK-01.
import { afterEach, describe, expect, it } from 'vitest';
import { createCodingAgent, createDemoModel } from '../src/coding-agent.js';
import type { AnySessionUpdate } from '../../protocol/src/index.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';
import { tempDir } from '../../../test/support/temp.js';

const pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
});

const agent = () => createCodingAgent({ model: createDemoModel({ delayMs: 0 }) });
const text = (u: AnySessionUpdate) =>
  u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '';

describe.each([1, 2] as const)('built-in agent, unstable session methods over v%i', (v) => {
  it('advertises fork, archive, status and title', async () => {
    const p = await connectInProcess(agent(), { version: v, schema: 'unstable' });
    pairs.push(p);
    expect(p.conn.agentCapabilities.session).toMatchObject({ fork: true, archive: true, status: true, title: true });
  });

  it('a title set by the client stays: the first prompt does not replace it', async () => {
    const p = await connectInProcess(agent(), { version: v, schema: 'unstable' });
    pairs.push(p);
    const s = await p.conn.newSession({ cwd: tempDir('coding-unstable-') });
    const titles: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'session_info_update' && typeof u.title === 'string') titles.push(u.title);
    });
    expect(await s.setTitle('My chosen title')).toBe('My chosen title');
    await s.prompt('list the files');
    expect(titles).toEqual(['My chosen title']);
    expect((await p.conn.listAllSessions()).find((i) => i.sessionId === s.sessionId)?.title).toBe('My chosen title');
    p.tap.assertAllValid();
  });

  it('fork: the copy carries the conversation and the title; status, archive and list agree', async () => {
    const p = await connectInProcess(agent(), { version: v, schema: 'unstable' });
    pairs.push(p);
    const cwd = tempDir('coding-unstable-');
    const s = await p.conn.newSession({ cwd });
    const sourceSaid: AnySessionUpdate[] = [];
    const stop = s.onUpdate((u) => void sourceSaid.push(u));
    await s.prompt('list the files');
    stop();
    const answer = sourceSaid.map(text).join('');
    expect(answer).not.toBe('');
    const fork = await s.fork();
    expect((await fork.status()).status).toBe('open');
    await fork.close();
    // the fork's stored history replays the source's conversation and title
    const replayed: AnySessionUpdate[] = [];
    const again = await p.conn.resumeSession(fork.sessionId, {
      cwd,
      replay: true,
      onUpdate: (u) => void replayed.push(u),
    });
    expect(replayed.map(text).join('')).toBe(answer);
    expect(replayed.some((u) => u.sessionUpdate === 'session_info_update' && u.title === 'list the files')).toBe(true);
    await again.close();
    expect(await p.conn.sessionStatus(fork.sessionId)).toEqual({ status: 'saved' });
    await s.archive();
    const listed = await p.conn.listAllSessions();
    expect(listed.map((i) => i.sessionId)).toEqual([fork.sessionId]);
    expect(listed[0]?.title).toBe('list the files');
    p.tap.assertAllValid();
  });
});

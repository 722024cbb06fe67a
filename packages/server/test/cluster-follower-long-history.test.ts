// A follower's replay of a long history (found by the HAProxy rolling-restart test): the history is
// read from the table a page (1,000 rows) at a time, and the follower used to replay only the first
// page before answering session/resume; the rest came after the answer, mixed with the live tail,
// so a client that looked at its state when the resume answered (the reconnecting client's
// catch-up, a UI) saw a cut transcript. Two in-process instances on one real PostgreSQL.
import { afterEach, expect, it } from 'vitest';
import { startClusterInstance } from '../../../test/support/cluster-instance.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { connectTapped, TOKEN } from '../../../test/support/remote.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const WORDS = 1200;

describePostgres('a follower replays a history longer than one page', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  it('session/resume with replay answers after the whole history: 1,200 chunks, in order, none after the answer', async () => {
    const control = controlledAgent();
    const one = await startClusterInstance({ databaseUrl: db.url, id: 'node-1', control, leaseMs: 1500, cleanups });
    const two = await startClusterInstance({ databaseUrl: db.url, id: 'node-2', control, leaseMs: 1500, cleanups });
    const a = await connectTapped(one.url, TOKEN);
    cleanups.push(() => a.conn.close());
    const sa = await a.conn.newSession({ cwd: '/tmp' });
    const words = Array.from({ length: WORDS }, (_, i) => `w${i}`);
    expect((await sa.prompt(`say:${words.join(' ')}`)).stopReason).toBe('end_turn');

    // B resumes through the other instance (a follower): what it holds when the answer arrives
    const b = await connectTapped(two.url, TOKEN);
    cleanups.push(() => b.conn.close());
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    const atAnswer = sb.state.messageList.filter((m) => m.role === 'agent').map((m) => m.text);
    expect(atAnswer).toEqual([words.map((w) => `${w} `).join('')]);
  });
});

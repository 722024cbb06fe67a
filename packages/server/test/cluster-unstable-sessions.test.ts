// The unstable session methods in a cluster: two instances on one real PostgreSQL database
// (test/support/postgres.ts), each behind its own server; the instance that created the session
// owns it and the other follows it. A follower carries session/status, set_title and archive to
// the owner, which has the session in memory: the status is `open`, the title reaches the owner's
// client, and an archive closes the run there.
import { afterEach, expect, it } from 'vitest';
import { startClusterInstance, type ClusterInstance } from '../../../test/support/cluster-instance.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { connectTapped, TOKEN, type TappedClient } from '../../../test/support/remote.js';
import { controlledAgent, type AgentControl } from '../../../test/support/shared-agent.js';

describePostgres('unstable session methods across two cluster instances', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });
  const instance = (id: string, control: AgentControl): Promise<ClusterInstance> =>
    startClusterInstance({ databaseUrl: db.url, id, control, leaseMs: 1500, pollMs: 200, cleanups });
  async function client(url: string): Promise<TappedClient> {
    const c = await connectTapped(url, TOKEN);
    cleanups.push(() => c.conn.close());
    return c;
  }

  it('status, set_title and archive from the follower instance act on the owner', async () => {
    const control = controlledAgent();
    control.definition.sessionMethods = { status: true, title: true, archive: true };
    const one = await instance('node-1', control);
    const two = await instance('node-2', control);
    const a = await client(one.url);
    const sa = await a.conn.newSession({ cwd: '/tmp' });
    await sa.prompt('say:hello');
    const b = await client(two.url);
    await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });

    // the follower's own agent does not have it in memory: only the owner can say `open`
    expect((await b.conn.sessionStatus(sa.sessionId)).status).toBe('open');
    expect(await b.conn.setSessionTitle(sa.sessionId, 'From node 2')).toBe('From node 2');
    await sa.prompt('say:after'); // a round trip on a: the title update came before its answer
    expect(sa.state.info.title).toBe('From node 2');

    await b.conn.archiveSession(sa.sessionId);
    const after = await sa.prompt('say:still').then(
      (r) => r.error?.code,
      (e: { code?: number }) => e.code,
    );
    expect(after).toBe(-32002);
    expect((await a.conn.listAllSessions()).map((s) => s.sessionId)).not.toContain(sa.sessionId);
    expect((await a.conn.listAllSessions({ archived: 'only' })).map((s) => s.sessionId)).toEqual([sa.sessionId]);
  }, 60_000);
});

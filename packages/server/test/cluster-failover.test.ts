// The failover of issue #14 with real processes: three `acp-kit serve --store postgres://…`
// instances (bin/acp-kit.js, from dist/: needs `npm run build`) on one real PostgreSQL database,
// two clients on one session through different instances, the owner killed with `kill -9` in the
// middle of a turn. The surviving client and a client that resumes afterwards through the third
// instance see the same transcript: every update persisted before the kill, nothing twice, and the
// turn's end with its reason.
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { OWNER_STOPPED } from '../src/index.js';
import { transcript, useClusterServes, type Serve } from '../../../test/support/cluster-serve.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

const TOKEN = 'cluster-failover-token';
const LEASE_MS = 1500;

const chunkText = (us: any[]): string =>
  us
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.content.text)
    .join('');

describePostgres('failover between acp-kit serve instances (kill -9 of the owner mid-turn)', () => {
  const db = usePostgres();
  const {
    clusterDir: newClusterDir,
    startServe,
    client,
  } = useClusterServes({ databaseUrl: () => db.url, token: TOKEN, leaseMs: LEASE_MS });
  // the instances are shared by the tests (a serve process costs more CPU to start than a test's
  // turns): each test kills an owner of its own and works on its own session
  afterAll(() => instances.clear());

  let sharedDir: string | undefined;
  /** The directory of the shared instances (token file, data dirs); sessions use it as their cwd. */
  function clusterDir(): string {
    sharedDir ??= newClusterDir();
    return sharedDir;
  }
  const instances = new Map<string, Promise<Serve>>();
  /** The serve instance with this id, started on first use. */
  function serve(id: string): Promise<Serve> {
    let p = instances.get(id);
    if (!p) instances.set(id, (p = startServe(clusterDir(), id)));
    return p;
  }

  it('the surviving client and a freshly resumed one see every persisted update once, and the turn ends with the reason', async () => {
    const dir = clusterDir();
    const [one, two, three] = await Promise.all(['inst-1', 'inst-2', 'inst-3'].map(serve));

    const a = await client(one.ws);
    const sa = await a.conn.newSession({ cwd: dir });
    const b = await client(two.ws);
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: dir, replay: true });

    // a long turn; kill its instance once the client on the other instance has seen some of it
    const turnA = sa.prompt('tell me a story').catch((e: unknown) => e);
    const someChunks = new Promise<void>((resolve) => {
      const off = sb.onUpdate(() => {
        if (b.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').length >= 5) {
          off();
          resolve();
        }
      });
    });
    await someChunks;
    const idleB = sb.nextIdle();
    one.proc.kill('SIGKILL');
    await new Promise((r) => one.proc.once('exit', r));

    // the surviving client: the turn ends once the lease expired and instance 2 took the session over
    const end = await idleB;
    expect(end.stopReason).toBe('error');
    expect(end.error?.message).toMatch(/the instance that ran the turn \(inst-1\) stopped \(lease expired\)/);
    // its own code, not a generic -32603: a client can tell a stopped server from an agent's failure
    expect(end.error).toMatchObject({ code: OWNER_STOPPED, data: { owner: 'inst-1' } });
    await turnA; // A's connection died with its instance

    // a client resuming now through the third instance: the history from the table
    const c = await client(three.ws);
    const sc = await c.conn.resumeSession(sa.sessionId, { cwd: dir, replay: true });
    await c.conn.listAllSessions();

    // the table: what was persisted (history rows), in seq order
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let stored: any[];
    try {
      stored = (
        await admin.query('select body from acp_updates where session_id = $1 and not live order by seq', [
          sa.sessionId,
        ])
      ).rows.map((r) => r.body);
    } finally {
      await admin.end();
    }
    const storedText = chunkText(stored);
    expect(storedText.length).toBeGreaterThan(0);
    // the kill landed mid-turn: the answer is cut short (the demo's help text is longer)
    expect(storedText).not.toMatch(/real model/);

    const seenByB = transcript(b.updates);
    const seenByC = transcript(c.updates);
    expect(seenByB).toEqual(seenByC);
    expect(seenByB[1].text).toBe(storedText);
    expect(seenByB.map((m) => m.kind)).toEqual(['user_message', 'agent_message']);
    expect(seenByB[0].text).toBe('tell me a story');
    // nothing twice: as many chunks as rows
    const chunks = (us: any[]) => us.filter((u) => u.sessionUpdate === 'agent_message_chunk').length;
    expect(chunks(b.updates)).toBe(chunks(stored));
    expect(chunks(c.updates)).toBe(chunks(stored));
    // B saw the end exactly once, as its last update
    const idles = b.updates.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason);
    expect(idles).toHaveLength(1);
    expect(b.updates.at(-1)).toEqual(
      end.stopReason === 'error'
        ? expect.objectContaining({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error' })
        : undefined,
    );

    // and the session goes on: a prompt through the third instance runs on the new owner
    const next = await sc.prompt('list files');
    expect(next.stopReason).toBe('end_turn');
    void two;
  }, 60_000);

  it("a client resuming through another instance while the dead owner's lease still runs gets the session once it is taken over, with the turn ended", async () => {
    const dir = clusterDir();
    // an owner of this test's own (inst-1 was killed by the test before), and a surviving instance
    const [one, two] = await Promise.all(['inst-4', 'inst-2'].map(serve));
    const a = await client(one.ws);
    const sa = await a.conn.newSession({ cwd: dir });
    const turnA = sa.prompt('tell me a story').catch((e: unknown) => e);
    await new Promise<void>((resolve) => {
      const off = sa.onUpdate(() => {
        if (a.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').length >= 5) {
          off();
          resolve();
        }
      });
    });
    one.proc.kill('SIGKILL');
    await new Promise((r) => one.proc.once('exit', r));
    await turnA;

    // at once: instance 4's lease is still live, so instance 2 waits for it to expire, then takes over
    const c = await client(two.ws);
    const sc = await c.conn.resumeSession(sa.sessionId, { cwd: dir, replay: true });
    await c.conn.listAllSessions();

    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let rows: { live: boolean; body: any }[];
    try {
      rows = (
        await admin.query('select live, body from acp_updates where session_id = $1 order by seq', [sa.sessionId])
      ).rows;
    } finally {
      await admin.end();
    }
    const stored = rows.filter((r) => !r.live).map((r) => r.body);
    const ends = rows.filter((r) => r.live && r.body.sessionUpdate === 'state_update' && r.body.state === 'idle');
    // exactly one end of the interrupted turn, naming why
    expect(ends).toHaveLength(1);
    expect(ends[0].body).toMatchObject({
      stopReason: 'error',
      error: {
        code: OWNER_STOPPED,
        message: expect.stringMatching(/the instance that ran the turn \(inst-4\) stopped \(lease expired\)/),
      },
    });
    // the owner's client saw only what was persisted; the resumed one sees all of it, once
    const storedText = chunkText(stored);
    expect(storedText.startsWith(chunkText(a.updates))).toBe(true);
    expect(transcript(c.updates).map((m) => m.text)).toEqual(['tell me a story', storedText]);
    expect(c.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk')).toHaveLength(
      stored.filter((u) => u.sessionUpdate === 'agent_message_chunk').length,
    );
    // idle, naming how the last turn ended (the takeover's end, `_meta`: docs/deploy.md)
    expect(c.updates.at(-1)).toEqual({
      sessionUpdate: 'state_update',
      state: 'idle',
      _meta: { 'acp-kit/lastTurn': { stopReason: 'error', error: expect.objectContaining({ code: OWNER_STOPPED }) } },
    });
    // the session goes on, run by instance 2
    expect((await sc.prompt('list files')).stopReason).toBe('end_turn');
  }, 60_000);
});

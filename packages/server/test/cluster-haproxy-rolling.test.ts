// Hosting day, behind a real load balancer (issue 24 item 10): Debian's HAProxy in front of three
// `acp-kit serve --store postgres://…` instances (bin/acp-kit.js, from dist/) on one real PostgreSQL,
// configured with the HAProxy block of docs/deploy.md (test/support/haproxy.ts). Clients connect
// through the one HAProxy URL, four over WebSocket and two over Streamable HTTP, with acp-kit's
// reconnecting client, and keep prompting while each instance in turn gets SIGTERM and is started
// again on its port. Afterwards every client's transcript equals the stored history and a fresh
// replay through HAProxy: no update lost or doubled, every turn ended exactly once.
//
// Each SIGTERM lands in the middle of the clients' turns (the test waits until every client's turn
// is running): a client on the stopping instance has its turn cut (`cancelled`) and resumes on
// another instance; it must still see every update of that turn once and its end, and its prompt
// resolves with that end (docs/deploy.md, "A restart in the middle of a turn").
import pg from 'pg';
import { expect, it } from 'vitest';
import { connectReconnecting, type ReconnectingConnection } from '../../client/src/index.js';
import { transcript, useClusterServes, type Serve } from '../../../test/support/cluster-serve.js';
import { describeHaproxy, freePort, startHaproxy, type Haproxy } from '../../../test/support/haproxy.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

const TOKEN = 'cluster-haproxy-token-0123456789';
const LEASE_MS = 4000;
const NAMES = ['serve1', 'serve2', 'serve3'];

const chunkTexts = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
const turnEnds = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason).map((u) => u.stopReason);

/** Whether the user's last turn is running now (its last `state_update` says so). */
const midTurn = (u: { updates: any[] }): boolean =>
  u.updates.findLast((x) => x.sessionUpdate === 'state_update')?.state === 'running';

/** One scripted user: a session through HAProxy, prompting until told to stop. */
interface User {
  conn: ReconnectingConnection;
  sessionId: string;
  updates: any[];
  results: string[];
  failures: string[];
  reconnects: number;
  run: Promise<void>;
}

describePostgres('three serve instances behind HAProxy', () => {
  const db = usePostgres();
  const { clusterDir, startServe, client } = useClusterServes({
    databaseUrl: () => db.url,
    token: TOKEN,
    leaseMs: LEASE_MS,
    // turns that stream for a while: each restart lands in the middle of them
    demoDelayMs: 40,
  });

  describeHaproxy('a rolling restart', () => {
    it('WebSocket and HTTP clients through one URL lose and double nothing while each instance restarts in turn', async () => {
      const dir = clusterDir();
      const ports = [await freePort(), await freePort(), await freePort()];
      const serves: Serve[] = await Promise.all(ports.map((p, i) => startServe(dir, `inst-${i + 1}`, p)));
      const lb: Haproxy = await startHaproxy(ports);
      const users: User[] = [];
      const replays = new Map<string, any[]>();
      let stopping = false;
      try {
        await lb.waitFor('UP', NAMES);
        const urls = [...Array(4).fill(lb.url.replace(/^http/, 'ws')), ...Array(2).fill(lb.url)];
        for (const url of urls) users.push(await startUser(url, dir, () => stopping));

        for (let i = 0; i < serves.length; i++) {
          const before = users.map((u) => u.results.length);
          // every user is in the middle of a turn: the instance stops while they stream
          await until(() => users.every(midTurn), 60_000);
          const old = serves[i]!;
          const exited = new Promise<number | null>((r) => old.proc.once('exit', (code) => r(code)));
          old.proc.kill('SIGTERM');
          expect(await exited).toBe(0);
          await lb.waitFor('DOWN', [NAMES[i]!]);
          serves[i] = await startServe(dir, `inst-${i + 1}`, ports[i]);
          await lb.waitFor('UP', NAMES);
          // the work goes on through HAProxy: every user finished two more turns
          await until(() => users.every((u, k) => u.results.length >= before[k]! + 2), 60_000);
        }
        stopping = true;
        await Promise.all(users.map((u) => u.run));
        // a fresh client through HAProxy replays each session
        for (const u of users) {
          const c = await client(lb.url.replace(/^http/, 'ws'));
          await c.conn.resumeSession(u.sessionId, { cwd: dir, replay: true });
          await c.conn.listAllSessions();
          replays.set(u.sessionId, c.updates);
        }
      } finally {
        stopping = true;
        await Promise.all(users.map((u) => u.conn.close().catch(() => undefined)));
        await lb.stop();
      }

      // the restarts reached clients: those on a stopped instance reconnected through HAProxy
      expect(users.reduce((n, u) => n + u.reconnects, 0)).toBeGreaterThanOrEqual(3);
      // and cut turns in the middle: some ended `cancelled`
      expect(users.some((u) => u.results.includes('cancelled'))).toBe(true);
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        for (const u of users) {
          expect(u.failures).toEqual([]);
          // every prompt was answered, and each turn ended exactly once, in order
          expect(u.results.length).toBeGreaterThanOrEqual(6);
          expect(turnEnds(u.updates)).toEqual(u.results);
          // a turn cut by a restart ends `cancelled` (the drain's end), never without a stop reason
          expect(u.results.every((r) => r === 'end_turn' || r === 'cancelled')).toBe(true);
          // what the client saw = the history rows (nothing lost, nothing doubled)
          const rows = (
            await admin.query('select body from acp_updates where session_id = $1 and not live order by seq', [
              u.sessionId,
            ])
          ).rows.map((r) => r.body);
          expect(chunkTexts(rows)).toEqual(chunkTexts(u.updates));
          expect(transcript(rows)).toEqual(transcript(u.updates));
          // and = what the fresh client was replayed
          expect(transcript(replays.get(u.sessionId) ?? [])).toEqual(transcript(u.updates));
        }
      } finally {
        await admin.end();
      }
    });
  });

  async function startUser(url: string, dir: string, stopped: () => boolean): Promise<User> {
    const conn = await connectReconnecting({
      url,
      token: TOKEN,
      protocol: 2,
      reconnect: { attempts: 30, baseDelayMs: 50, maxDelayMs: 500 },
    });
    const session = await conn.newSession({ cwd: dir });
    const user: User = {
      conn,
      sessionId: session.sessionId,
      updates: [],
      results: [],
      failures: [],
      reconnects: 0,
      run: Promise.resolve(),
    };
    conn.on('reconnected', () => void user.reconnects++);
    session.onUpdate((u) => void user.updates.push(u));
    user.run = (async () => {
      for (let n = 0; !stopped(); n++) {
        try {
          const r = await session.prompt(`list files ${n}`);
          user.results.push(String(r.stopReason));
        } catch (e) {
          user.failures.push(e instanceof Error ? e.message : String(e));
          return;
        }
      }
    })();
    return user;
  }
});

async function until(ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

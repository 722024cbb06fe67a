// Hosting day, behind a real load balancer (issue 24 item 10): Debian's HAProxy in front of three
// `acp-kit serve --store postgres://…` instances (bin/acp-kit.js, from dist/) on one real PostgreSQL,
// configured with the HAProxy block of docs/deploy.md (test/support/haproxy.ts). Clients connect
// through the one HAProxy URL, four over WebSocket and two over Streamable HTTP, with acp-kit's
// reconnecting client, and keep prompting while each instance in turn gets SIGTERM and is started
// again on its port. Afterwards every client's transcript equals the stored history and a fresh
// replay through HAProxy: no update lost or doubled, every turn ended exactly once.
//
// Each restart happens between the clients' turns (they wait at a gate while an instance restarts):
// a SIGTERM in the middle of a turn can still lose the turn's tail and its end for a client whose
// resume reaches another instance before the stopping one committed them (docs/deploy.md, "Known
// issue"); that case is not claimed here.
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

/** Lets the users' prompt loops run, or holds each before its next prompt. */
class Gate {
  private opened: Promise<void> = Promise.resolve();
  private open: (() => void) | undefined;
  waiting = 0;
  close(): void {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open?.();
    this.open = undefined;
  }
  async pass(): Promise<void> {
    this.waiting++;
    await this.opened;
    this.waiting--;
  }
}

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
    // short turns: the restarts happen between them
    demoDelayMs: 3,
  });

  describeHaproxy('a rolling restart', () => {
    it('WebSocket and HTTP clients through one URL lose and double nothing while each instance restarts in turn', async () => {
      const dir = clusterDir();
      const ports = [await freePort(), await freePort(), await freePort()];
      const serves: Serve[] = await Promise.all(ports.map((p, i) => startServe(dir, `inst-${i + 1}`, p)));
      const lb: Haproxy = await startHaproxy(ports);
      const gate = new Gate();
      const users: User[] = [];
      const replays = new Map<string, any[]>();
      let stopping = false;
      try {
        await lb.waitFor('UP', NAMES);
        const urls = [...Array(4).fill(lb.url.replace(/^http/, 'ws')), ...Array(2).fill(lb.url)];
        for (const url of urls) users.push(await startUser(url, dir, gate, () => stopping));

        for (let i = 0; i < serves.length; i++) {
          const before = users.map((u) => u.results.length);
          // every user finishes the turn it runs, then waits: the instance stops between turns
          gate.close();
          await until(() => gate.waiting === users.length, 60_000);
          const old = serves[i]!;
          const exited = new Promise<number | null>((r) => old.proc.once('exit', (code) => r(code)));
          old.proc.kill('SIGTERM');
          expect(await exited).toBe(0);
          await lb.waitFor('DOWN', [NAMES[i]!]);
          gate.release();
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
        gate.release();
        await Promise.all(users.map((u) => u.conn.close().catch(() => undefined)));
        await lb.stop();
      }

      // the restarts reached clients: those on a stopped instance reconnected through HAProxy
      expect(users.reduce((n, u) => n + u.reconnects, 0)).toBeGreaterThanOrEqual(3);
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        for (const u of users) {
          expect(u.failures).toEqual([]);
          // every prompt was answered, and each turn ended exactly once, in order
          expect(u.results.length).toBeGreaterThanOrEqual(6);
          expect(turnEnds(u.updates)).toEqual(u.results);
          expect(u.results.every((r) => r === 'end_turn')).toBe(true);
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

  async function startUser(url: string, dir: string, gate: Gate, stopped: () => boolean): Promise<User> {
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
        await gate.pass();
        if (stopped()) return;
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

// One cluster instance in this process for the in-process cluster tests: a pg pool of its own (to
// the database, or through a relay the test cuts), one PostgresSessionStore per namespace, a
// ClusterNode, and startAcpServer on loopback (real WebSockets) with the steerable test agent.
// Everything it opens is closed by the caller's cleanups, last opened first.
import pg from 'pg';
import { PostgresSessionStore } from '../../packages/server/src/store/postgres/postgres-session-store.js';
import { migrate } from '../../packages/server/src/store/postgres/migrations.js';
import { ClusterNode } from '../../packages/server/src/cluster/node.js';
import { inProcessAgent, startAcpServer, type AcpServer } from '../../packages/server/src/index.js';
import { TOKEN, wsUrl, type TappedClient } from './remote.js';
import { controlledAgent, type AgentControl } from './shared-agent.js';

export interface ClusterInstance {
  node: ClusterNode;
  server: AcpServer;
  /** the server's WebSocket URL */
  url: string;
  /**
   * A clean stop in the order of `acp-kit serve`'s SIGTERM: beginStop, the server's shutdown, the
   * node's stop (leases given back), then the stores and the pool closed.
   */
  stopLikeServe(graceMs?: number): Promise<void>;
}

export interface ClusterInstanceOptions {
  /** where the pool connects (the database, or a relay in front of it) */
  databaseUrl: string;
  id: string;
  control: AgentControl;
  leaseMs: number;
  pollMs?: number;
  /** the stores' retry window for a running turn's writes */
  retryForMs?: number;
  /** fence the stores' writes by this instance's leases, as `acp-kit serve` does (default true) */
  fenced?: boolean;
  /** what the node and the agent log */
  log?: string[];
  cleanups: (() => Promise<unknown> | unknown)[];
}

export async function startClusterInstance(o: ClusterInstanceOptions): Promise<ClusterInstance> {
  // no connect timeout: a connection opened while a relay holds waits for the database to come back
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 6 });
  // as createPostgresPool's pools: a connection the server ends (terminated, database dropped) while
  // it idles or is being closed must not become an unhandled error of the test worker
  pool.on('error', () => undefined);
  o.cleanups.push(() => pool.end());
  const stores = new Map<string, PostgresSessionStore>();
  const storeFor = (namespace: string): PostgresSessionStore => {
    let s = stores.get(namespace);
    if (!s)
      stores.set(
        namespace,
        (s = new PostgresSessionStore({
          pool,
          namespace,
          fanOut: true,
          retryForMs: o.retryForMs,
          leaseOwner: o.fenced === false ? undefined : o.id,
        })),
      );
    return s;
  };
  o.cleanups.push(() => Promise.all([...stores.values()].map((s) => s.close())));
  await migrate(pool);
  const log = o.log;
  const logger = log && {
    debug: () => undefined,
    info: (m: string) => log.push(m),
    warn: (m: string) => log.push(`warning: ${m}`),
    error: (m: string) => log.push(`error: ${m}`),
  };
  // the LISTEN connection is made from the pool's options: it goes through a relay too
  const node = await ClusterNode.start({
    pool,
    instanceId: o.id,
    leaseMs: o.leaseMs,
    pollMs: o.pollMs,
    log: log && ((l) => log.push(l)),
  });
  o.cleanups.push(() => node.stop());
  const server = await startAcpServer({
    readiness: () => node.readiness(),
    tokens: [TOKEN],
    agent: node.agent(inProcessAgent(o.control.definition, { storeFor, ...(logger ? { logger } : {}) }), storeFor),
  });
  o.cleanups.push(() => server.close(1000));
  const stopLikeServe = async (graceMs = 5000): Promise<void> => {
    node.beginStop();
    await server.close(graceMs);
    await node.stop();
    await Promise.all([...stores.values()].map((s) => s.close().catch(() => undefined)));
    await pool.end().catch(() => undefined);
  };
  return { node, server, url: wsUrl(server), stopLikeServe };
}

/**
 * Two instances of one steerable agent: client A on the first creates a session (its instance owns
 * it), client B resumes it through the second (a follower).
 */
export async function ownerAndFollower<I extends { url: string }>(
  instance: (id: string, control: AgentControl) => Promise<I>,
  client: (url: string) => Promise<TappedClient>,
) {
  const control = controlledAgent();
  const one = await instance('node-1', control);
  const two = await instance('node-2', control);
  const a = await client(one.url);
  const sa = await a.conn.newSession({ cwd: '/tmp' });
  const b = await client(two.url);
  const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
  return { control, one, two, a, sa, b, sb };
}

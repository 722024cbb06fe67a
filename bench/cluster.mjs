// Several `acp-kit serve` instances on one PostgreSQL (docs/postgres-cluster.md), in this process:
// ClusterNode + startAcpServer per instance, each with its own pool, on a throwaway cluster
// (scripts/pg-cluster.mjs); clients over real WebSockets on loopback.
// - fan-out latency: an agent turn emits timestamped chunks, spaced out; the latency of each chunk
//   from its emission to the owner's client (same instance: committed, then sent) and to a client
//   following the session on another instance (committed, NOTIFY, read from the table, sent).
// - 1,000 sessions (20 stored updates each) resumed with their history across 3 instances.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { PostgresSessionStore, migrate } from 'acp-kit/agent';
import { connect } from '@acp-kit/client';
import { ClusterNode, inProcessAgent, startAcpServer } from '@acp-kit/server';
import { findPostgresBin, startCluster } from '../scripts/pg-cluster.mjs';

const TOKEN = 'bench-cluster-token';
const FANOUT_CHUNKS = Number(process.env.BENCH_CLUSTER_CHUNKS ?? 400);
const FANOUT_SPACING_MS = 2;
const RESUME_SESSIONS = Number(process.env.BENCH_CLUSTER_SESSIONS ?? 1000);
const RESUME_HISTORY = 20;
/** The many-session fan-out row (issue 24 item 7): sessions streaming at once, each at 30 chunks/s. */
const FANOUT_SESSIONS = Number(process.env.BENCH_CLUSTER_FANOUT_SESSIONS ?? 500);
const FANOUT_MANY_CHUNKS = 60;
const RESUME_CONCURRENCY = 16;

const definition = {
  info: { name: 'cluster-bench-agent', version: '0.0.0' },
  async prompt(turn) {
    // "<chunks>" or "<chunks>:<spacing ms>" (the many-session row streams at a model's rate)
    const [n = 0, spacing = FANOUT_SPACING_MS] = String(turn.prompt[0]?.text ?? '0')
      .split(':')
      .map(Number);
    const messageId = turn.session.newId('msg');
    for (let k = 0; k < n; k++) {
      // the emission time rides in the text: every instance runs in this process, one clock
      await turn.send({
        sessionUpdate: 'agent_message_chunk',
        messageId,
        content: { type: 'text', text: `${performance.now()}` },
      });
      await new Promise((r) => setTimeout(r, spacing));
    }
    return 'end_turn';
  },
};

async function instance(url, id) {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // statements counted (the fan-out row's statements per chunk: a figure the machine's load does not change)
  const query = pool.query.bind(pool);
  pool.query = (...args) => (statements.n++, query(...args));
  const stores = new Map();
  const storeFor = (ns) => {
    if (!stores.has(ns)) stores.set(ns, new PostgresSessionStore({ pool, namespace: ns, fanOut: true }));
    return stores.get(ns);
  };
  await migrate(pool);
  const node = await ClusterNode.start({ pool, instanceId: id });
  const server = await startAcpServer({
    tokens: [TOKEN],
    agent: node.agent(inProcessAgent(definition, { storeFor }), storeFor),
    maxSessions: Math.max(RESUME_SESSIONS, 2 * FANOUT_SESSIONS) + 10,
    maxConnections: 2 * FANOUT_SESSIONS + 16,
    maxPendingSockets: 2 * FANOUT_SESSIONS + 16,
    maxPendingSocketsPerIp: 2 * FANOUT_SESSIONS + 16,
  });
  return {
    ws: server.url.replace(/^http/, 'ws'),
    storeFor,
    async stop() {
      await server.close(1000);
      await node.stop();
      for (const s of stores.values()) await s.close().catch(() => undefined);
      await pool.end();
    },
  };
}

/** Statements the instances' pools ran so far. */
const statements = { n: 0 };

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function fanout(instances) {
  const [one, two] = instances;
  const latencies = { owner: [], follower: [] };
  const watch = (kind) => ({
    sent() {},
    received(m) {
      if (m?.method !== 'session/update' || m.params.update.sessionUpdate !== 'agent_message_chunk') return;
      const at = Number(m.params.update.content.text);
      if (Number.isFinite(at)) latencies[kind].push(performance.now() - at);
    },
  });
  const a = await connect({ url: one.ws, token: TOKEN, protocol: 2, tap: watch('owner') });
  const b = await connect({ url: two.ws, token: TOKEN, protocol: 2, tap: watch('follower') });
  try {
    const sa = await a.newSession({ cwd: process.cwd() });
    const sb = await b.resumeSession(sa.sessionId, { cwd: process.cwd() });
    // warm-up: JIT, pool connections
    const warmB = sb.nextIdle();
    await sa.prompt('50');
    await warmB;
    latencies.owner.length = 0;
    latencies.follower.length = 0;
    const idleB = sb.nextIdle();
    const r = await sa.prompt(String(FANOUT_CHUNKS));
    if (r.stopReason !== 'end_turn') throw new Error(`stop reason ${r.stopReason}`);
    await idleB;
    const row = (kind) => {
      const s = [...latencies[kind]].sort((x, y) => x - y);
      return { n: s.length, p50: pct(s, 50), p99: pct(s, 99) };
    };
    return { owner: row('owner'), follower: row('follower') };
  } finally {
    await a.close();
    await b.close();
  }
}

/**
 * FANOUT_SESSIONS sessions owned on instance one, each followed by a client of instance two; every
 * owner prompts at once (starts spread over one second) and its turn streams FANOUT_MANY_CHUNKS
 * chunks at 30/s. The follower's latencies (emitted -> client on the other instance).
 */
async function fanoutMany(instances, pgDir) {
  const [one, two] = instances;
  const lat = [];
  // the owners' clients too: what of the follower's latency the commit (and this one process's load) already is
  const ownerLat = [];
  const tapInto = (into) => ({
    sent() {},
    received(m) {
      if (m?.method !== 'session/update' || m.params.update.sessionUpdate !== 'agent_message_chunk') return;
      const at = Number(m.params.update.content.text);
      if (Number.isFinite(at)) into.push(performance.now() - at);
    },
  });
  const tap = tapInto(lat);
  const pairs = [];
  try {
    for (let i = 0; i < FANOUT_SESSIONS; i += 25) {
      const batch = Array.from({ length: Math.min(25, FANOUT_SESSIONS - i) }, async () => {
        const a = await connect({ url: one.ws, token: TOKEN, protocol: 2, tap: tapInto(ownerLat) });
        const b = await connect({ url: two.ws, token: TOKEN, protocol: 2, tap });
        const sa = await a.newSession({ cwd: process.cwd() });
        const sb = await b.resumeSession(sa.sessionId, { cwd: process.cwd() });
        return { a, b, sa, sb };
      });
      pairs.push(...(await Promise.all(batch)));
    }
    // the event loop's delay while streaming: every instance and every client runs in this one process
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const cpu0 = process.cpuUsage();
    const pg0 = postgresCpuUs(pgDir);
    const st0 = statements.n;
    const t0 = performance.now();
    await Promise.all(
      pairs.map(async ({ sa, sb }) => {
        await new Promise((r) => setTimeout(r, Math.random() * 1000));
        const idle = sb.nextIdle();
        const r = await sa.prompt(`${FANOUT_MANY_CHUNKS}:33`);
        if (r.stopReason !== 'end_turn') throw new Error(`stop reason ${r.stopReason}`);
        await idle;
      }),
    );
    const s = lat.sort((x, y) => x - y);
    if (s.length !== FANOUT_SESSIONS * FANOUT_MANY_CHUNKS) throw new Error(`followers got ${s.length} chunks`);
    loop.disable();
    const cpu = process.cpuUsage(cpu0);
    const pgCpu = postgresCpuUs(pgDir) - pg0;
    const busy = (cpu.user + cpu.system) / 1000 / (performance.now() - t0);
    const o = ownerLat.sort((x, y) => x - y);
    return {
      sessions: FANOUT_SESSIONS,
      n: s.length,
      p50: pct(s, 50),
      p99: pct(s, 99),
      owner: { p50: pct(o, 50), p99: pct(o, 99) },
      loopP99: loop.percentile(99) / 1e6,
      busy,
      // CPU per chunk: what the machine's other load changes less than it changes latency
      cpuPerChunk: (cpu.user + cpu.system) / s.length,
      pgPerChunk: pgCpu / s.length,
      statementsPerChunk: (statements.n - st0) / s.length,
    };
  } finally {
    await Promise.all(pairs.flatMap(({ a, b }) => [a.close(), b.close()]));
  }
}

/** CPU time (us) of the throwaway cluster's server processes so far (its postmaster's children, from /proc). */
function postgresCpuUs(dir) {
  try {
    const postmaster = readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      // fields after the command's closing parenthesis: state ppid ... utime(14) stime(15)
      let stat = '';
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pid === postmaster || f[1] === postmaster) ticks += Number(f[11]) + Number(f[12]);
    }
    // clock ticks: 100 a second on Linux
    return (ticks * 1e6) / 100;
  } catch {
    return NaN;
  }
}

async function resumeMany(instances, url) {
  // the sessions, written straight into the store (their history: RESUME_HISTORY chunks each)
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const store = new PostgresSessionStore({ pool, namespace: instances[0].namespace, fanOut: false });
  const ids = [];
  try {
    for (let i = 0; i < RESUME_SESSIONS; i++) {
      const sessionId = `sess_bench_${i}`;
      ids.push(sessionId);
      await store.create({
        sessionId,
        cwd: process.cwd(),
        additionalDirectories: [],
        createdAt: new Date().toISOString(),
        title: null,
      });
    }
    const appends = [];
    for (const sessionId of ids) {
      for (let k = 0; k < RESUME_HISTORY; k++)
        appends.push(
          store.append(sessionId, {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'm',
            content: { type: 'text', text: `history chunk ${k} ` },
          }),
        );
    }
    await Promise.all(appends);
  } finally {
    await store.close();
    await pool.end();
  }
  const clients = await Promise.all(instances.map((inst) => connect({ url: inst.ws, token: TOKEN, protocol: 2 })));
  try {
    let replayed = 0;
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        const s = await clients[i % clients.length].resumeSession(ids[i], { cwd: process.cwd(), replay: true });
        replayed += s.state.messageList.length > 0 ? 1 : 0;
      }
    };
    await Promise.all(Array.from({ length: RESUME_CONCURRENCY * clients.length }, worker));
    const secs = (performance.now() - t0) / 1000;
    if (replayed !== ids.length) throw new Error(`${replayed} of ${ids.length} sessions replayed their history`);
    return { sessions: ids.length, secs, perSec: ids.length / secs };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

/** Rows of both measurements, or `{ skipped }` without PostgreSQL server binaries. */
export async function runClusterBench() {
  if (!findPostgresBin()) return { skipped: "skipped: no PostgreSQL (install Debian's postgresql for these rows)" };
  const cluster = await startCluster();
  const instances = [];
  try {
    for (const id of ['bench-1', 'bench-2', 'bench-3']) instances.push(await instance(cluster.url, id));
    const fan = await fanout(instances);
    const many = FANOUT_SESSIONS > 0 ? await fanoutMany(instances, cluster.dir) : undefined;
    // the namespace of the token: what startAcpServer derives from it (the first 12 hex of its digest)
    const { createHash } = await import('node:crypto');
    instances[0].namespace = createHash('sha256').update(TOKEN).digest('hex').slice(0, 12);
    const resumed = await resumeMany(instances, cluster.url);
    return { fan, many, resumed };
  } finally {
    for (const i of instances) await i.stop().catch(() => undefined);
    cluster.stop();
  }
}

const fmt = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

export function formatClusterRows(r) {
  if (r.skipped) return `| cluster (3 instances on one PostgreSQL) | ${r.skipped} |`;
  return [
    '| measurement | result |',
    '|---|---:|',
    `| fan-out latency, emitted -> owner's client (same instance), p50 / p99 | ${fmt(r.fan.owner.p50)} / ${fmt(r.fan.owner.p99)} ms (${r.fan.owner.n} chunks) |`,
    `| fan-out latency, emitted -> follower's client (other instance), p50 / p99 | ${fmt(r.fan.follower.p50)} / ${fmt(r.fan.follower.p99)} ms (${r.fan.follower.n} chunks) |`,
    ...(r.many
      ? [
          `| fan-out latency at ${r.many.sessions} sessions streaming at once (30 chunks/s each), emitted -> follower's client (other instance), p50 / p99; goal p99 < 10 ms | ${fmt(r.many.p50)} / ${fmt(r.many.p99)} ms (${r.many.n} chunks) |`,
          `| the same, emitted -> owner's client (same instance), p50 / p99 | ${fmt(r.many.owner.p50)} / ${fmt(r.many.owner.p99)} ms |`,
          `| the same, the bench process (3 instances + ${2 * r.many.sessions} clients): event loop delay p99, CPU cores busy, CPU per chunk; PostgreSQL's CPU per chunk, statements per chunk | ${fmt(r.many.loopP99)} ms, ${fmt(r.many.busy, 2)}, ${fmt(r.many.cpuPerChunk)} us; ${fmt(r.many.pgPerChunk)} us, ${fmt(r.many.statementsPerChunk, 3)} |`,
        ]
      : []),
    `| ${r.resumed.sessions.toLocaleString('en-US')} sessions (${RESUME_HISTORY} updates each) resumed with replay across 3 instances | ${fmt(r.resumed.secs, 2)} s, ${fmt(r.resumed.perSec, 0)} sessions/s |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(formatClusterRows(await runClusterBench()));

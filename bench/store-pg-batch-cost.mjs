// What one batch of the PostgreSQL store costs against a plain multi-row INSERT of the same rows
// (issue 24 item 8): N chunk updates appended in one tick (one batch statement of the store), then
// N rows into acp_updates in one `INSERT ... VALUES` on a `pg` connection of its own; alternating,
// ROUNDS times, in a throwaway cluster (scripts/pg-cluster.mjs).
// node bench/store-pg-batch-cost.mjs   (env: BENCH_BATCH_ROWS, default 256; BENCH_BATCH_ROUNDS, default 6)
import pg from 'pg';
import { PostgresSessionStore } from 'acp-kit/agent';
import { findPostgresBin, MISSING_POSTGRES, startCluster } from '../scripts/pg-cluster.mjs';
import { CHUNK_TEXT } from './common.mjs';

const N = Number(process.env.BENCH_BATCH_ROWS ?? 256);
const ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 6);
const update = {
  sessionUpdate: 'agent_message_chunk',
  messageId: 'msg-1',
  content: { type: 'text', text: CHUNK_TEXT },
};
const body = JSON.stringify(update);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

if (!findPostgresBin()) {
  console.log(MISSING_POSTGRES);
  process.exit(0);
}
const cluster = await startCluster();
const store = new PostgresSessionStore({ url: cluster.url, namespace: 'cost' });
const raw = new pg.Client({ connectionString: cluster.url });
try {
  await store.ready();
  await raw.connect();
  await store.create({
    sessionId: 's',
    cwd: '/',
    additionalDirectories: [],
    createdAt: new Date().toISOString(),
    title: null,
  });
  await raw.query(`INSERT INTO acp_sessions (namespace, session_id, meta) VALUES ('raw', 'r', '{}')`);
  const values = Array.from({ length: N }, (_, k) => `('raw', 'r', $${2 * k + 1}::bigint, $${2 * k + 2}::jsonb)`);
  let seq = 0;
  console.log(`| round | store batch of ${N} (ms) | raw multi-row INSERT of ${N} (ms) |\n|---:|---:|---:|`);
  for (let round = 1; round <= ROUNDS; round++) {
    let t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: N }, () => store.append('s', update)));
    const batch = ms(t0);
    t0 = process.hrtime.bigint();
    await raw.query(
      `INSERT INTO acp_updates (namespace, session_id, seq, body) VALUES ${values.join(',')}`,
      Array.from({ length: N }, () => [++seq, body]).flat(),
    );
    console.log(`| ${round} | ${batch.toFixed(1)} | ${ms(t0).toFixed(1)} |`);
  }
} finally {
  await raw.end().catch(() => undefined);
  await store.close().catch(() => undefined);
  cluster.stop();
}

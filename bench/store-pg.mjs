// PostgreSQL session store vs JSONL store: updates/s of one prompt turn streaming agent_message_chunk
// updates through the agent runtime (in process, over in-memory pipes to the client runtime), each
// update persisted before it is sent. PostgreSQL runs in a throwaway cluster (scripts/pg-cluster.mjs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { JsonlSessionStore, PostgresSessionStore, serveAgent } from '../dist/bundle/agent.js';
import { connect } from '../dist/bundle/client.js';
import { StreamTransport } from '../dist/bundle/rpc.js';
import { findPostgresBin, startCluster } from '../scripts/pg-cluster.mjs';
import { CHUNK_TEXT } from './common.mjs';

/** Goal of issue 14: the PostgreSQL store streams at least half the JSONL store's updates/s. */
export const PG_STORE_GOAL = 0.5;
const silent = { debug() {}, info() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };

const definition = {
  info: { name: 'store-bench-agent', version: '0.0.0' },
  async prompt(turn) {
    const n = Number(turn.prompt[0]?.text ?? 0);
    const messageId = turn.session.newId('msg');
    for (let k = 0; k < n; k++) await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: CHUNK_TEXT } });
    return 'end_turn';
  },
};

/** One turn of `updates` chunks with `store`; returns updates/s as the client saw them. */
async function turnThrough(store, updates) {
  const c2a = new PassThrough();
  const a2c = new PassThrough();
  const agent = serveAgent(definition, new StreamTransport(c2a, a2c), { store, logger: silent });
  const conn = await connect({ transport: new StreamTransport(a2c, c2a), protocol: 2 });
  try {
    const session = await conn.newSession({ cwd: process.cwd() });
    const t0 = process.hrtime.bigint();
    const r = await session.prompt(String(updates));
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.stopReason !== 'end_turn') throw new Error(`stop reason ${r.stopReason}`);
    const stored = await store.load(session.sessionId);
    if (stored.updates.length !== updates + 1) throw new Error(`stored ${stored.updates.length} updates, expected ${updates + 1}`);
    return updates / secs;
  } finally {
    await conn.close();
    agent.close();
    await agent.closed;
  }
}

/** Rows: store, updates/s, ratio to JSONL; or one `skipped` row without server binaries. */
export async function runPgStoreBench({ updates = Number(process.env.BENCH_STORE_UPDATES ?? 20_000) } = {}) {
  if (!findPostgresBin()) return { skipped: 'skipped: no PostgreSQL (install Debian\'s postgresql for this row)' };
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-bench-jsonl-'));
  const cluster = await startCluster();
  const pg = new PostgresSessionStore({ url: cluster.url, namespace: 'bench' });
  try {
    await pg.ready();
    const jsonl = new JsonlSessionStore({ dir });
    // a warm-up turn each (JIT, pool connections), then the measured one
    await turnThrough(jsonl, 2_000);
    await turnThrough(pg, 2_000);
    const jsonlRate = await turnThrough(jsonl, updates);
    const pgRate = await turnThrough(pg, updates);
    return { updates, jsonl: jsonlRate, postgres: pgRate, ratio: pgRate / jsonlRate };
  } finally {
    await pg.close().catch(() => undefined);
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

export function formatPgStoreRows(r) {
  if (r.skipped) return `| PostgreSQL store vs JSONL store | ${r.skipped} |`;
  return [
    '| store | updates/s | vs JSONL |',
    '|---|---:|---:|',
    `| JSONL (one file per session, write(2) per update) | ${fmt(r.jsonl)} | 1.00 |`,
    `| PostgreSQL (batched INSERT per tick, committed before sent) | ${fmt(r.postgres)} | ${r.ratio.toFixed(2)} (goal >= ${PG_STORE_GOAL}) |`,
  ].join('\n');
}

// alone: node bench/store-pg.mjs
if (import.meta.url === `file://${process.argv[1]}`) console.log(formatPgStoreRows(await runPgStoreBench()));

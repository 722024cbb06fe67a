// PostgreSQL session store vs JSONL store: updates/s of one prompt turn streaming agent_message_chunk
// updates through the agent runtime (in process, over in-memory pipes to the client runtime), each
// update persisted before it is sent; then through one real `acp-kit serve` process per store (the
// built-in agent with the demo model, a v2 client over WebSocket on loopback, N sessions streaming at
// once). PostgreSQL runs in a throwaway cluster (scripts/pg-cluster.mjs).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { JsonlSessionStore, PostgresSessionStore, serveAgent } from 'acp-kit/agent';
import { approveAll, connect } from '@acp-kit/client';
import { StreamTransport } from '@acp-kit/protocol/rpc';
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
    for (let k = 0; k < n; k++)
      await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: CHUNK_TEXT } });
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
    if (stored.updates.length !== updates + 1)
      throw new Error(`stored ${stored.updates.length} updates, expected ${updates + 1}`);
    return updates / secs;
  } finally {
    await conn.close();
    agent.close();
    await agent.closed;
  }
}

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
// `acp-kit serve` refuses weak tokens (16+ characters, 8+ distinct)
const TOKEN = randomBytes(24).toString('hex');
/** Concurrent sessions of the `acp-kit serve` rows (one WebSocket connection each). */
export const SERVE_SESSIONS = (process.env.BENCH_STORE_SERVE_SESSIONS ?? '1,8').split(',').map(Number);

/** Starts `acp-kit serve` (demo model, no pause per word); resolves with its WebSocket URL and a stop function. */
async function startServe(store, dataDir) {
  const args = [BIN, 'serve', '--port', '0', '--token', TOKEN, '--model', 'demo', ...(store ? ['--store', store] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ACP_KIT_DEMO_DELAY_MS: '0', ACP_KIT_DATA_DIR: dataDir, ACP_KIT_MODEL: '' },
  });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  try {
    const line = await new Promise((resolve, reject) => {
      const rl = createInterface({ input: child.stdout });
      rl.once('line', (l) => {
        rl.close();
        resolve(l);
      });
      child.once('exit', (code) => reject(new Error(`acp-kit serve exited with ${code}: ${err}`)));
    });
    return { ws: JSON.parse(line).ws, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * `sessions` clients, each on its own WebSocket connection with a session, prompt at once; the demo
 * model streams the `words` words of the file it is asked to create back as agent_message_chunk
 * updates (its summary quotes the content). Returns every client's updates per second of wall time.
 */
async function serveTurns(ws, cwd, sessions, words) {
  const content = Array.from({ length: words }, (_, i) => `w${i % 10}`).join(' ');
  const clients = await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const conn = await connect({ url: ws, token: TOKEN, protocol: 2, permissionPolicy: approveAll() });
      const session = await conn.newSession({ cwd });
      const seen = { updates: 0, chunks: 0 };
      session.onUpdate((u) => {
        seen.updates++;
        if (u.sessionUpdate === 'agent_message_chunk') seen.chunks++;
      });
      return { conn, session, seen, file: `out-${i}.txt` };
    }),
  );
  try {
    const t0 = process.hrtime.bigint();
    const results = await Promise.all(
      clients.map(({ session, file }) => session.prompt(`create ${file} containing ${content}`)),
    );
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    for (const [i, r] of results.entries()) {
      if (r.stopReason !== 'end_turn')
        throw new Error(`session ${i}: stop reason ${r.stopReason}${r.error ? ` (${r.error.message})` : ''}`);
      // the summary quotes every word: a turn cut short would show here
      if (clients[i].seen.chunks < words)
        throw new Error(`session ${i}: ${clients[i].seen.chunks} message chunks, expected >= ${words}`);
    }
    return clients.reduce((n, c) => n + c.seen.updates, 0) / secs;
  } finally {
    await Promise.all(clients.map(({ conn }) => conn.close()));
  }
}

/** Measured rounds per store and count of sessions (the best counts: the machine is shared). */
const SERVE_ROUNDS = Number(process.env.BENCH_STORE_SERVE_ROUNDS ?? 3);

/**
 * One `acp-kit serve` per store, both running; a warm-up turn each, then per count of sessions
 * SERVE_ROUNDS rounds alternating between the stores (so both see the same background load), the
 * best round of each. Returns per count of sessions { jsonl, postgres } updates/s.
 */
async function serveRates(pgUrl, words) {
  const made = [];
  const temp = (prefix) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
  const servers = {};
  try {
    const cwd = temp('acp-kit-bench-serve-cwd-');
    servers.jsonl = await startServe(undefined, temp('acp-kit-bench-serve-data-'));
    servers.postgres = await startServe(pgUrl, temp('acp-kit-bench-serve-data-'));
    for (const s of Object.values(servers)) await serveTurns(s.ws, cwd, Math.max(...SERVE_SESSIONS), 1_000);
    const rates = {};
    for (const n of SERVE_SESSIONS) {
      const best = { jsonl: 0, postgres: 0 };
      for (let round = 0; round < SERVE_ROUNDS; round++) {
        for (const kind of ['jsonl', 'postgres'])
          best[kind] = Math.max(best[kind], await serveTurns(servers[kind].ws, cwd, n, Math.ceil(words / n)));
      }
      rates[n] = best;
    }
    return rates;
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    for (const d of made) rmSync(d, { recursive: true, force: true });
  }
}

/** The body of a chunk as the store writes it (same size as the runtime's). */
const RAW_BODY = JSON.stringify({
  sessionUpdate: 'agent_message_chunk',
  messageId: 'msg-raw',
  content: { type: 'text', text: CHUNK_TEXT },
});

/** A fresh session row of the store's own tables for a raw row (the same table, indexes and foreign key). */
async function rawSession(client, sessionId) {
  await client.query(`INSERT INTO acp_sessions (namespace, session_id, meta) VALUES ('bench-raw', $1, '{}'::jsonb)`, [
    sessionId,
  ]);
}

/**
 * The database's own limit, in the same run: `updates` rows into `acp_updates` on one `pg` client,
 * one INSERT per update awaited one by one (what "stored before sent" costs when every update waits
 * for its own round trip). Returns rows/s.
 */
async function rawInsertLoop(client, updates) {
  await rawSession(client, 'loop');
  const t0 = process.hrtime.bigint();
  for (let seq = 1; seq <= updates; seq++)
    await client.query(
      `INSERT INTO acp_updates (namespace, session_id, seq, body) VALUES ('bench-raw', 'loop', $1, $2::jsonb)`,
      [seq, RAW_BODY],
    );
  return updates / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/**
 * The same rows produced one per macrotask (as the demo model streams tokens) and written per tick:
 * while one multi-row INSERT is in flight the next rows queue, then go as ONE INSERT. Returns
 * { rate: rows/s, statements } (the batching the store does, without its bookkeeping).
 */
async function rawBatchedPerTick(client, updates) {
  await rawSession(client, 'batched');
  const queue = [];
  let inFlight;
  let statements = 0;
  let next = 1;
  const write = async (rows) => {
    statements++;
    const values = rows.map((_, k) => `('bench-raw', 'batched', $${2 * k + 1}::bigint, $${2 * k + 2}::jsonb)`);
    await client.query(
      `INSERT INTO acp_updates (namespace, session_id, seq, body) VALUES ${values.join(',')}`,
      rows.flatMap((seq) => [seq, RAW_BODY]),
    );
  };
  const pump = () => {
    if (inFlight || queue.length === 0) return;
    // at most the store's MAX_BATCH rows per statement (and within PostgreSQL's 65,535 parameters)
    const rows = queue.splice(0, 2000);
    inFlight = write(rows).finally(() => {
      inFlight = undefined;
      pump();
    });
  };
  const t0 = process.hrtime.bigint();
  while (next <= updates) {
    queue.push(next++);
    pump();
    await new Promise((r) => setImmediate(r));
  }
  while (inFlight) await inFlight;
  return { rate: updates / (Number(process.hrtime.bigint() - t0) / 1e9), statements };
}

/** Both raw rows on one connection of their own (the store's pool is not involved). */
async function rawRates(url, updates) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const loop = await rawInsertLoop(client, updates);
    const batched = await rawBatchedPerTick(client, updates);
    return { loop, batched: batched.rate, batchedStatements: batched.statements };
  } finally {
    await client.end();
  }
}

/** Rows: store, updates/s, ratio to JSONL (in process, then through `acp-kit serve`); or one `skipped` row without server binaries. */
export async function runPgStoreBench({
  updates = Number(process.env.BENCH_STORE_UPDATES ?? 20_000),
  serveWords = Number(process.env.BENCH_STORE_SERVE_WORDS ?? 16_000),
} = {}) {
  if (!findPostgresBin()) return { skipped: "skipped: no PostgreSQL (install Debian's postgresql for this row)" };
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
    const raw = await rawRates(cluster.url, updates);
    const rates = await serveRates(cluster.url, serveWords);
    const serve = SERVE_SESSIONS.map((n) => ({ sessions: n, ...rates[n], ratio: rates[n].postgres / rates[n].jsonl }));
    return { updates, jsonl: jsonlRate, postgres: pgRate, ratio: pgRate / jsonlRate, raw, serveWords, serve };
  } finally {
    await pg.close().catch(() => undefined);
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

export function formatPgStoreRows(r) {
  if (r.skipped) return `| PostgreSQL store vs JSONL store | ${r.skipped} |`;
  const out = [
    '| store (agent runtime in process) | updates/s | vs JSONL |',
    '|---|---:|---:|',
    `| JSONL (one file per session, write(2) per update) | ${fmt(r.jsonl)} | 1.00 |`,
    `| PostgreSQL (batched INSERT per tick, committed before sent) | ${fmt(r.postgres)} | ${r.ratio.toFixed(2)} (goal >= ${PG_STORE_GOAL}) |`,
  ];
  if (r.raw)
    out.push(
      `| raw \`pg\` INSERT loop, same rows (one INSERT per update, awaited one by one; no runtime) | ${fmt(r.raw.loop)} | ${(r.raw.loop / r.jsonl).toFixed(2)} |`,
      `| raw \`pg\` multi-row INSERT per tick, same rows (one row per macrotask; ${fmt(r.raw.batchedStatements)} statements; no runtime) | ${fmt(r.raw.batched)} | ${(r.raw.batched / r.jsonl).toFixed(2)} |`,
    );
  if (r.serve) {
    out.push(
      '',
      `| through one \`acp-kit serve\` per store (WebSocket, ${fmt(r.serveWords)} chunks in all, best of ${SERVE_ROUNDS}) | JSONL updates/s | PostgreSQL updates/s | PostgreSQL vs JSONL |`,
      '|---|---:|---:|---:|',
    );
    for (const s of r.serve)
      out.push(
        `| ${s.sessions} session${s.sessions === 1 ? '' : 's'} streaming at once | ${fmt(s.jsonl)} | ${fmt(s.postgres)} | ${s.ratio.toFixed(2)} (goal >= ${PG_STORE_GOAL}) |`,
      );
  }
  return out.join('\n');
}

// alone: node bench/store-pg.mjs
if (import.meta.url === `file://${process.argv[1]}`) console.log(formatPgStoreRows(await runPgStoreBench()));

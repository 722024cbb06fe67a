// Sessions per instance at a real token rate (issue 24 item 7): N sessions, each streaming like a
// model (RATE chunks/s, ~40 chars a chunk), over WebSocket and Streamable HTTP; the largest N whose
// p99 chunk latency (due from the model -> received by the client) stays under TARGET_P99_MS.
// A model streams on its own schedule: chunk k of a turn is due at start + (k + 1) / RATE whatever
// the server does with chunk k - 1 (a provider's tokens arrive on the socket and wait there), and its
// latency counts from that due time. Pacing each chunk after the previous one was handled (the
// earlier method) let a slow server lower its own load and hid the wait (coordinated omission).
// acp-kit: what `acp-kit serve` runs (the built-in coding agent, the demo model on that schedule, a
// JSONL store per owner), with the model's text deltas stamped with their due time. SDK: the official
// SDK's AcpServer with an SDK agent streaming the same chunks on the same schedule. Clients: CLIENT_PROCS processes (acp-kit's client, one connection + session each).
// Alone: node bench/capacity.mjs. Knobs: BENCH_CAPACITY_CAP (largest N tried), _START (first N),
// _CHUNKS (chunks per turn), _RATE, _CLIENTS, _ONLY (e.g. "acp-kit websocket"), _AT (one probe, no search),
// _STORE=memory (acp-kit without its JSONL store), _PROF=<dir> (a CPU profile of the
// streaming part of each server), _PACING=relative (the earlier method: a pause after each chunk, stamped
// when emitted).
// Internal modes: --server <acp-kit|sdk> <cap> (prints {"port"}), --clients <url> <n> <chunks>.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { percentile } from './common.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const TOKEN = 'bench-token';
const env = (k, d) => Number(process.env[`BENCH_CAPACITY_${k}`] ?? d);
export const CAPACITY_RATE = env('RATE', 30);
const CHUNKS = env('CHUNKS', 60);
const CAP = env('CAP', 3200);
const START = env('START', 100);
const CLIENT_PROCS = env('CLIENTS', 3);
/** Goals from issue 24 item 7. */
export const CAPACITY_GOALS = { p99Ms: 100, sessions: 2000, vsSdk: 4 };

/** Wall-clock ms with sub-ms resolution, comparable between processes on this machine. */
const nowMs = () => performance.timeOrigin + performance.now();
/** A ~40-character chunk that carries its due time (the client subtracts it from its arrival time). */
const stamped = (at = nowMs()) => `${at.toFixed(3)} `.padEnd(39, 'x') + ' ';
const dueTimeOf = (text) => Number(text.slice(0, text.indexOf(' ')));
const RELATIVE = process.env.BENCH_CAPACITY_PACING === 'relative';
const PAUSE_MS = 1000 / CAPACITY_RATE;

/**
 * The due times of one turn's chunks, from now: waits until chunk k is due and returns its due time
 * (at once when it is overdue: the chunk was waiting). With BENCH_CAPACITY_PACING=relative, a pause
 * after the previous chunk and the time it ends instead.
 */
function schedule() {
  const start = nowMs();
  let k = 0;
  return async () => {
    const due = RELATIVE ? nowMs() + PAUSE_MS : start + ++k * PAUSE_MS;
    const wait = due - nowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return RELATIVE ? nowMs() : due;
  };
}

/**
 * The demo model (no delay of its own) on the turn's schedule: each text delta waits until it is due
 * and its text is replaced by a chunk stamped with that time; after CHUNKS deltas the turn finishes
 * (`stop`).
 */
function stampedDemo(createDemoModel) {
  const demo = createDemoModel({ delayMs: 0 });
  return {
    ...demo,
    async *stream(req) {
      let n = 0;
      const next = schedule();
      for await (const ev of demo.stream(req)) {
        if (ev.type !== 'text_delta') continue;
        yield { type: 'text_delta', text: stamped(await next()) };
        if (++n === CHUNKS) break;
      }
      yield { type: 'usage', inputTokens: 1, outputTokens: n };
      yield { type: 'finish', reason: 'stop' };
    },
  };
}

async function acpKitServer(cap) {
  const { startAcpServer, inProcessAgent } = await import('@acp-kit/server');
  const { createCodingAgent, createDemoModel } = await import('@acp-kit/coding-agent');
  const { JsonlSessionStore } = await import('@acp-kit/agent');
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-capacity-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const definition = createCodingAgent({ model: stampedDemo(createDemoModel), info: { name: 'bench', version: '0' } });
  const s = await startAcpServer({
    // BENCH_CAPACITY_STORE=memory: the runtime's in-memory store instead (what the JSONL writes cost)
    agent: inProcessAgent(
      definition,
      process.env.BENCH_CAPACITY_STORE === 'memory'
        ? {}
        : { storeFor: (owner) => new JsonlSessionStore({ dir: join(dir, owner) }) },
    ),
    tokens: [TOKEN],
    maxConnections: cap + 16,
    maxSessions: cap + 16,
    maxPendingSockets: cap + 16,
    maxPendingSocketsPerIp: cap + 16,
  });
  return s.port;
}

async function sdkServer() {
  const acp = await import('@agentclientprotocol/sdk');
  const { AcpServer } = await import('@agentclientprotocol/sdk/experimental/server');
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } =
    await import('@agentclientprotocol/sdk/experimental/node');
  const { WebSocketServer } = await import('ws');
  let sessions = 0;
  const app = () =>
    acp
      .agent({ name: 'sdk-capacity-agent' })
      .onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
      .onRequest('session/new', () => ({ sessionId: `s${++sessions}` }))
      .onRequest('session/prompt', async ({ params, client }) => {
        // on the same schedule as acp-kit's model
        const next = schedule();
        for (let k = 0; k < CHUNKS; k++) {
          const text = stamped(await next());
          await client.notify('session/update', {
            sessionId: params.sessionId,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
          });
        }
        return { stopReason: 'end_turn' };
      });
  const sdk = new AcpServer({ createAgent: app });
  const wss = new WebSocketServer({ noServer: true });
  const http = createServer(createNodeHttpHandler(sdk));
  http.on('upgrade', createNodeWebSocketUpgradeHandler(sdk, wss));
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  return http.address().port;
}

/**
 * One client process: `n` connections with a session each, opened 25 at a time, and a warm-up turn; prints "ready", waits
 * for a line on stdin, then each session prompts once after a random offset within one second (models
 * do not start in step) and every chunk's latency is recorded. Prints the latencies (0.1 ms) as JSON.
 */
async function clients(url, n, chunks) {
  const { connect } = await import('@acp-kit/client');
  const open = [];
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, async () => {
      const conn = await connect({ url, token: TOKEN });
      const session = await conn.newSession({ cwd: process.cwd() });
      const lat = [];
      // first and last chunk's arrival times: the rate the session really reached its client at (a
      // saturated server delivers slower than RATE, whatever the due times say)
      const span = { first: 0, last: 0 };
      session.onUpdate((u) => {
        if (u.sessionUpdate !== 'agent_message_chunk') return;
        const now = nowMs();
        lat.push(Math.round((now - dueTimeOf(u.content.text)) * 10));
        if (span.first === 0) span.first = now;
        span.last = now;
      });
      return { conn, session, lat, span };
    });
    open.push(...(await Promise.all(batch)));
  }
  // a warm-up turn per process (code compiled, pools grown): a cold server's first turn is not the rate
  const first = open[0];
  if (first) {
    await first.session.prompt('warm up');
    first.lat.length = 0;
    first.span.first = 0;
  }
  process.stdout.write('ready\n');
  await new Promise((r) => createInterface({ input: process.stdin }).once('line', r));
  const cpu0 = process.cpuUsage();
  let failed = 0;
  await Promise.all(
    open.map(async ({ session, lat }) => {
      await new Promise((r) => setTimeout(r, Math.random() * 1000));
      const r = await session.prompt('stream');
      // a turn cut short or chunks lost fail the probe (a missing chunk has no latency to count)
      if (r.stopReason !== 'end_turn' || lat.length !== chunks) failed++;
    }),
  );
  const lat = open.flatMap((o) => o.lat);
  // chunks per second each session reached its client at (arrival times, first to last)
  const rates = open.map(({ lat: l, span }) => (l.length - 1) / Math.max(1e-3, (span.last - span.first) / 1000));
  const cpu = process.cpuUsage(cpu0);
  // the line must be flushed before process.exit: stdout to a pipe is asynchronous on POSIX, and at
  // N=3,200 (a ~350 KB line) the exit cut it at 219,264 bytes; readline handed the parent the cut line
  // at EOF ("Expected ',' or ']' after array element in JSON at position 219264")
  await new Promise((r) =>
    process.stdout.write(JSON.stringify({ failed, lat, rates, cpuUs: cpu.user + cpu.system }) + '\n', r),
  );
  await Promise.all(open.map(({ conn }) => conn.close()));
}

/** Spawns this file in a mode; resolves with the child and a reader of its next stdout line. */
function child(args, nodeArgs = []) {
  const c = spawn(process.execPath, [...nodeArgs, here('./capacity.mjs'), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  const waiting = [];
  createInterface({ input: c.stdout }).on('line', (l) => (waiting.length ? waiting.shift()(l) : lines.push(l)));
  const exited = new Promise((_, reject) =>
    c.once('exit', (code) => reject(new Error(`bench/capacity.mjs ${args.join(' ')} exited with ${code}`))),
  );
  exited.catch(() => {});
  const line = () => Promise.race([lines.length ? lines.shift() : new Promise((r) => waiting.push(r)), exited]);
  const kill = () =>
    new Promise((r) => {
      if (c.exitCode !== null || c.signalCode !== null) return r();
      c.once('exit', r);
      // SIGTERM first: a server under --cpu-prof writes its profile as it exits
      c.kill('SIGTERM');
      setTimeout(() => c.kill('SIGKILL'), 5000).unref();
    });
  return { c, line, kill };
}

/** One probe: a fresh server of `kind`, `n` sessions over `transport`; the p99 latency and a pass flag. */
async function probe(kind, transport, n) {
  const server = child(['--server', kind, String(n)]);
  const procs = [];
  try {
    const { port } = JSON.parse(await server.line());
    const url = `${transport === 'websocket' ? 'ws' : 'http'}://127.0.0.1:${port}/acp`;
    const per = Math.ceil(n / CLIENT_PROCS);
    for (let i = 0; i < n; i += per)
      procs.push(child(['--clients', url, String(Math.min(per, n - i)), String(CHUNKS)]));
    for (const p of procs) if ((await p.line()) !== 'ready') throw new Error('client not ready');
    // the server's CPU time over the streaming part only (SIGUSR2 prints it): a figure the load of
    // other work on the machine changes less than it changes latency
    const cpu = async () => (server.c.kill('SIGUSR2'), JSON.parse(await server.line()).cpuUs);
    const cpu0 = await cpu();
    for (const p of procs) p.c.stdin.write('go\n');
    const results = await Promise.all(procs.map(async (p) => JSON.parse(await p.line())));
    const cpuUs = (await cpu()) - cpu0;
    const lat = results.flatMap((r) => r.lat).sort((a, b) => a - b);
    const failed = results.reduce((s, r) => s + r.failed, 0);
    // the rate the sessions held: the 5th percentile session (a probe whose sessions slowed down
    // below 90 % of RATE did not carry N sessions at the rate, whatever its latency)
    const rates = results.flatMap((r) => r.rates).sort((a, b) => a - b);
    const rateP5 = percentile(rates, 5);
    const p99 = percentile(lat, 99) / 10;
    const perChunk = cpuUs / Math.max(1, lat.length);
    // the clients' CPU per chunk (all processes): they share the machine with the server
    const clientPerChunk = results.reduce((t, r) => t + r.cpuUs, 0) / Math.max(1, lat.length);
    return {
      n,
      p50: percentile(lat, 50) / 10,
      p99,
      perChunk,
      clientPerChunk,
      failed,
      rateP5,
      ok: failed === 0 && p99 < CAPACITY_GOALS.p99Ms && rateP5 >= 0.9 * CAPACITY_RATE,
    };
  } catch (e) {
    return { n, p50: NaN, p99: NaN, failed: n, ok: false, error: String(e.message ?? e) };
  } finally {
    await Promise.all([...procs.map((p) => p.kill()), server.kill()]);
  }
}

/** The largest passing N: doubling from START up to CAP, then bisection to within 10 %. */
async function largestN(kind, transport, log) {
  const probes = [];
  const run = async (n) => {
    const r = await probe(kind, transport, n);
    probes.push(r);
    log(
      `  ${kind} ${transport} N=${n}: p50 ${r.p50} ms, p99 ${r.p99} ms, server CPU ${r.perChunk?.toFixed(1)} us/chunk, clients ${r.clientPerChunk?.toFixed(1)} us/chunk, rate held (p5 session) ${r.rateP5?.toFixed(1)}/s, failed ${r.failed}${r.error ? ` (${r.error})` : ''}`,
    );
    return r.ok;
  };
  // BENCH_CAPACITY_AT=<n>: one probe at n, no search (the CPU per chunk of both servers at one size)
  const at1 = env('AT', 0);
  if (at1 > 0) {
    const r = (await run(at1), probes[0]);
    return { kind, transport, n: r.ok ? at1 : 0, capped: false, p50: r.p50, p99: r.p99, perChunk: r.perChunk, probes };
  }
  let good = 0;
  let bad = 0;
  for (let n = START; ; n = Math.min(n * 2, CAP)) {
    if (await run(n)) good = n;
    else {
      bad = n;
      break;
    }
    if (n === CAP) break;
  }
  while (bad && bad - good > Math.max(good * 0.1, 10)) {
    const mid = Math.round((good + bad) / 2);
    if (await run(mid)) good = mid;
    else bad = mid;
  }
  const at = probes.find((p) => p.n === good);
  return {
    kind,
    transport,
    n: good,
    capped: !bad,
    p50: at?.p50 ?? NaN,
    p99: at?.p99 ?? NaN,
    perChunk: at?.perChunk ?? NaN,
    probes,
  };
}

/** Every row: acp-kit and the SDK over WebSocket and Streamable HTTP. */
export async function runCapacityBench(log = (l) => process.stderr.write(l + '\n')) {
  const only = process.env.BENCH_CAPACITY_ONLY;
  const rows = [];
  for (const kind of ['acp-kit', 'sdk'])
    for (const transport of ['websocket', 'http'])
      if (!only || only === `${kind} ${transport}`) rows.push(await largestN(kind, transport, log));
  return rows;
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

/** The markdown table of {@link runCapacityBench}. */
export function formatCapacityRows(rows) {
  const out = [
    `| server, transport | sessions N (p99 < ${CAPACITY_GOALS.p99Ms} ms) | p50 ms at N | p99 ms at N | vs SDK same transport | server CPU us per chunk at N | sessions one core holds at that cost |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const sdk = rows.find((x) => x.kind === 'sdk' && x.transport === r.transport);
    const name = r.kind === 'sdk' ? 'official SDK AcpServer (SDK agent)' : 'acp-kit serve (built-in agent, demo model)';
    out.push(
      `| ${name}, ${r.transport === 'websocket' ? 'WebSocket' : 'Streamable HTTP'} | ${r.capped ? '>= ' : ''}${fmt(r.n)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${r.kind === 'acp-kit' && sdk?.n ? `${fmt(r.n / sdk.n, 2)}x` : ''} | ${fmt(r.perChunk, 1)} | ${fmt(1e6 / (CAPACITY_RATE * r.perChunk))} |`,
    );
  }
  return out.join('\n');
}

/** The title line of the rows: what is measured and the goals. */
export function capacityHeader() {
  return `Sessions per instance at a model's rate (bench/capacity.mjs; alone: node bench/capacity.mjs): each session streams ${CHUNKS} chunks at ${CAPACITY_RATE}/s (~40 chars), ${CLIENT_PROCS} client processes; the largest N whose sessions all stream at once at >= 90 % of the rate (5th percentile session) with p99 due -> received under ${CAPACITY_GOALS.p99Ms} ms (doubling from ${START} to ${CAP}, then bisection); goals N >= ${CAPACITY_GOALS.sessions.toLocaleString('en-US')}, >= ${CAPACITY_GOALS.vsSdk}x the SDK`;
}

if (process.argv[2] === '--server') {
  process.once('SIGTERM', () => process.exit(0));
  // BENCH_CAPACITY_PROF=<dir>: a CPU profile of the streaming part (between the two SIGUSR2), not
  // of start-up and connection set-up, for finding the knee's costs
  const prof = process.env.BENCH_CAPACITY_PROF;
  const { Session } = await import('node:inspector/promises');
  const inspector = prof ? new Session() : undefined;
  inspector?.connect();
  let profiling = false;
  process.on('SIGUSR2', async () => {
    const u = process.cpuUsage();
    if (inspector && !profiling) {
      profiling = true;
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
    } else if (inspector) {
      const { profile } = await inspector.post('Profiler.stop');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        join(prof, `${process.argv[3]}-${process.argv[4]}-${process.pid}.cpuprofile`),
        JSON.stringify(profile),
      );
    }
    process.stdout.write(JSON.stringify({ cpuUs: u.user + u.system }) + '\n');
  });
  const port = process.argv[3] === 'sdk' ? await sdkServer() : await acpKitServer(Number(process.argv[4]));
  process.stdout.write(JSON.stringify({ port }) + '\n');
} else if (process.argv[2] === '--clients') {
  await clients(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(capacityHeader());
  console.log(formatCapacityRows(await runCapacityBench()));
}

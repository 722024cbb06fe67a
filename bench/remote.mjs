// Remote transports (issue 13, Performance): UPDATES agent_message_chunk updates + ROUND_TRIPS round
// trips over WebSocket and Streamable HTTP beside stdio, for acp-kit's server (startAcpServer) and the
// official SDK's AcpServer (Node handlers + ws), with acp-kit's client on loopback; then CONNS
// concurrent connections each streaming at once (round trip p99 while they stream, server RSS per
// idle connection). Alone: node bench/remote.mjs
// Internal modes: --server <acp-kit|sdk> (prints {"port"} then serves), --client <url> <label>,
// --many <url> <label> (the concurrency client).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CHUNK_TEXT, measureAcpKitClient, peakRssMb, percentile, report, ROUND_TRIPS, UPDATES } from './common.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const TOKEN = 'bench-token';
export const CONNS = Number(process.env.BENCH_REMOTE_CONNS ?? 200);
/**
 * Idle connections per client process beyond which --idle spreads them over several processes, each
 * from its own loopback source address (127.0.0.2, 127.0.0.3, ...): one address has ~28k ephemeral
 * ports towards the server, one process is bounded by `ulimit -n`. BENCH_REMOTE_IDLE_PROCS overrides.
 */
const IDLE_PER_PROC = 10_000;
/** Descriptors the bench server needs besides its idle connections (stdio, the listener, the probe, node's own). */
const IDLE_FD_SPARE = 64;
const IDLE_PROCS = Number(process.env.BENCH_REMOTE_IDLE_PROCS ?? Math.ceil(CONNS / IDLE_PER_PROC));
/** Chunks each of the CONNS connections streams at once. */
const MANY_UPDATES = Number(process.env.BENCH_REMOTE_MANY_UPDATES ?? 500);
/** Goals from issue 13: WebSocket >= 60 % of stdio; acp-kit >= 2x the SDK's AcpServer. */
export const REMOTE_GOALS = { wsOfStdio: 0.6, vsSdk: 2 };

/**
 * The server's memory after several full collections (the server runs with --expose-gc): RSS and
 * the JS heap plus buffers. One collection leaves garbage of the last burst behind, and a reading
 * without any is noise larger than the per-connection figure (it came out negative).
 */
async function memoryMb() {
  for (let i = 0; i < 6; i++) {
    globalThis.gc?.();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return { rssMb: m.rss / 1e6, heapMb: (m.heapUsed + m.external) / 1e6 };
}

/**
 * BENCH_REMOTE_SNAPSHOT=<dir>: the server writes a heap snapshot (after the same full collections as
 * {@link memoryMb}) before and after the idle connections open, to diff what each one holds.
 */
async function heapSnapshot({ name }) {
  const dir = process.env.BENCH_REMOTE_SNAPSHOT;
  if (!dir) return {};
  await memoryMb();
  const { writeHeapSnapshot } = await import('node:v8');
  return { file: writeHeapSnapshot(`${dir}/${name}.heapsnapshot`) };
}

/**
 * Telemetry on, as `serve --metrics-port` runs it: the metrics SDK with the Prometheus exporter as
 * its reader (never scraped: recording is what costs per message), and a tracer provider that keeps
 * every span (sampled, no exporter), so each prompt turn pays for a recorded span.
 */
async function benchTelemetry() {
  const { MeterProvider } = await import('@opentelemetry/sdk-metrics');
  const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
  const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');
  const meterProvider = new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] });
  return { meterProvider, tracerProvider: new BasicTracerProvider() };
}

async function streamChunks(n, send) {
  for (let k = 0; k < n; k++) await send(CHUNK_TEXT);
}

async function server(kind) {
  let http;
  if (kind === 'acp-kit' || kind === 'acp-kit-otel') {
    const { startAcpServer } = await import('@acp-kit/server');
    const { serveAgent } = await import('@acp-kit/agent');
    const definition = {
      info: { name: 'acp-kit-bench-agent', version: '0.0.0' },
      async prompt(turn) {
        const messageId = turn.session.newId('msg');
        await streamChunks(Number(turn.prompt[0]?.text ?? 0), (text) =>
          turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } }),
        );
        return 'end_turn';
      },
    };
    const logger = { debug() {}, info() {}, warn() {}, error: (m) => process.stderr.write(String(m) + '\n') };
    const s = await startAcpServer({
      ...(kind === 'acp-kit-otel' ? { telemetry: await benchTelemetry() } : {}),
      tokens: [TOKEN],
      maxConnections: CONNS + 16,
      maxSessions: CONNS + 16,
      agent: (transport) => {
        // like bench/acp-kit-agent.mjs: no history store (the SDK agent keeps none either)
        const conn = serveAgent(definition, transport, { store: null, logger });
        conn.peer.onRequest('_bench/ping', () => ({}));
        conn.peer.onRequest('_bench/rss', () => memoryMb());
        conn.peer.onRequest('_bench/snapshot', heapSnapshot);
        return {
          async shutdown() {
            conn.close();
            await conn.closed;
          },
          close: () => conn.close(),
        };
      },
    });
    process.stdout.write(JSON.stringify({ port: s.port }) + '\n');
    return;
  }
  const acp = await import('@agentclientprotocol/sdk');
  const { AcpServer } = await import('@agentclientprotocol/sdk/experimental/server');
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } =
    await import('@agentclientprotocol/sdk/experimental/node');
  const { WebSocketServer } = await import('ws');
  let sessions = 0;
  const app = () =>
    acp
      .agent({ name: 'sdk-bench-agent' })
      .onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
      .onRequest('session/new', () => ({ sessionId: `s${++sessions}` }))
      .onRequest('session/prompt', async ({ params, client }) => {
        const n = Number(params.prompt[0]?.text ?? 0);
        await streamChunks(n, (text) =>
          client.notify('session/update', {
            sessionId: params.sessionId,
            update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text } },
          }),
        );
        return { stopReason: 'end_turn' };
      })
      .onRequest('*', ({ method, params }) => {
        if (method === '_bench/ping') return {};
        if (method === '_bench/rss') return memoryMb();
        if (method === '_bench/snapshot') return heapSnapshot(params);
        throw acp.RequestError.methodNotFound(method);
      });
  const sdk = new AcpServer({ createAgent: app });
  const wss = new WebSocketServer({ noServer: true });
  http = createServer(createNodeHttpHandler(sdk));
  http.on('upgrade', createNodeWebSocketUpgradeHandler(sdk, wss));
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  process.stdout.write(JSON.stringify({ port: http.address().port }) + '\n');
}

async function client(url, label) {
  const { connect } = await import('@acp-kit/client');
  const conn = await connect({ url, token: TOKEN });
  const session = await conn.newSession({ cwd: process.cwd() });
  const { rtts, secs } = await measureAcpKitClient(conn, session, label);
  report({
    label,
    protocol: conn.protocolVersion,
    updatesPerSec: UPDATES / secs,
    p50: percentile(rtts, 50),
    p99: percentile(rtts, 99),
    clientRssMb: peakRssMb(),
  });
  await conn.close();
}

/** Opens n connections with a session each, a few at a time (a burst of n handshakes measures accept(), not the transport). */
async function openSessions(url, n, localAddress) {
  const { connect } = await import('@acp-kit/client');
  const { connectWebSocketTransport } = await import('@acp-kit/protocol/websocket');
  const out = [];
  for (let i = 0; i < n; i += 20) {
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, n - i) }, async () => {
          const conn = await (localAddress
            ? connect({ transport: connectWebSocketTransport(url, { token: TOKEN, localAddress }) })
            : connect({ url, token: TOKEN }));
          return { conn, session: await conn.newSession({ cwd: process.cwd() }) };
        }),
      )),
    );
  }
  return out;
}

/**
 * --idle-holder <url> <n> <localAddress>: a client process of a spread --idle run. Opens n idle
 * connections from localAddress, prints {"opened": n}, holds them until its stdin ends, closes them.
 */
async function idleHolder(url, n, localAddress) {
  const conns = await openSessions(url, n, localAddress);
  report({ opened: conns.length });
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  await Promise.all(conns.map(({ conn }) => conn.close()));
}

/** CONNS idle connections spread over IDLE_PROCS holder processes; resolves once all are open. */
async function spreadIdle(url) {
  const holders = [];
  try {
    for (let i = 0; i < IDLE_PROCS; i++) {
      const n = Math.floor(CONNS / IDLE_PROCS) + (i < CONNS % IDLE_PROCS ? 1 : 0);
      const child = spawn(
        process.execPath,
        [here('./remote.mjs'), '--idle-holder', url, String(n), `127.0.0.${2 + i}`],
        {
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      holders.push(child);
    }
    await Promise.all(
      holders.map(
        (child) =>
          new Promise((resolve, reject) => {
            const rl = createInterface({ input: child.stdout });
            rl.once('line', resolve);
            child.once('exit', (code) =>
              reject(new Error(`an idle holder exited with ${code} before opening its connections`)),
            );
          }),
      ),
    );
  } catch (e) {
    for (const child of holders) child.kill('SIGKILL');
    throw e;
  }
  const closeAll = () =>
    Promise.all(
      holders.map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin.end();
        return exited;
      }),
    );
  return closeAll;
}

/**
 * Opens CONNS idle connections (a session each) and returns them with the server's memory growth
 * per connection in KB, measured after a warm-up round (code loaded and compiled, pools grown).
 * `spread`: in IDLE_PROCS client processes when that is more than one (then `conns` is empty).
 */
async function openIdle(url, spread = false) {
  const { connect } = await import('@acp-kit/client');
  const probe = await connect({ url, token: TOKEN });
  const warm = await openSessions(url, Math.min(40, CONNS));
  await Promise.all(warm.map(({ conn }) => conn.close()));
  await probe.extRequest('_bench/snapshot', { name: 'before' });
  const before = await probe.extRequest('_bench/rss', {});
  let conns = [];
  let closeSpread = async () => undefined;
  if (spread && IDLE_PROCS > 1) closeSpread = await spreadIdle(url);
  else conns = await openSessions(url, CONNS);
  const after = await probe.extRequest('_bench/rss', {});
  await probe.extRequest('_bench/snapshot', { name: 'after' });
  const perConn = (key) => ((after[key] - before[key]) * 1000) / CONNS;
  const close = async () => {
    await Promise.all([closeSpread(), ...conns.map(({ conn }) => conn.close())]);
    await probe.close();
  };
  return {
    probe,
    conns,
    close,
    idleKbPerConn: perConn('rssMb'),
    idleHeapKbPerConn: perConn('heapMb'),
    rssMb: after.rssMb,
  };
}

async function many(url, label) {
  const { probe, conns, idleKbPerConn, idleHeapKbPerConn } = await openIdle(url);
  const rtts = [];
  const t0 = process.hrtime.bigint();
  await Promise.all(
    conns.map(async ({ conn, session }) => {
      const turn = session.prompt(String(MANY_UPDATES));
      // round trips while every connection streams
      for (let i = 0; i < 5; i++) {
        const t = process.hrtime.bigint();
        await conn.extRequest('_bench/ping', {});
        rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      const r = await turn;
      if (r.stopReason !== 'end_turn') throw new Error(`${label}: stop reason ${r.stopReason}`);
      const text = session.state.messageList
        .filter((m) => m.role === 'agent')
        .map((m) => m.text)
        .join('');
      if (text.length !== MANY_UPDATES * CHUNK_TEXT.length) throw new Error(`${label}: got ${text.length} chars`);
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  rtts.sort((a, b) => a - b);
  report({
    label,
    conns: CONNS,
    updatesPerSec: (CONNS * MANY_UPDATES) / secs,
    p50: percentile(rtts, 50),
    p99: percentile(rtts, 99),
    idleKbPerConn,
    idleHeapKbPerConn,
  });
  await Promise.all(conns.map(({ conn }) => conn.close()));
  await probe.close();
}

function runNode(args) {
  const r = spawnSync(process.execPath, [here('./remote.mjs'), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`bench/remote.mjs ${args.join(' ')} failed with status ${r.status}: ${r.stdout}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/** Starts a server process; resolves with its port and a stop function. */
async function startServer(kind) {
  // --expose-gc: the idle-connection memory is read after full collections (see memoryMb)
  const child = spawn(process.execPath, ['--expose-gc', here('./remote.mjs'), '--server', kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (l) => {
      rl.close();
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`bench server ${kind} exited with ${code}`)));
  });
  const { port } = JSON.parse(line);
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGKILL');
      }),
  };
}

/** Every row: stdio, then per server (acp-kit, SDK) WebSocket and HTTP, then the concurrency rows. */
export async function runRemoteBench() {
  const rows = [];
  // BENCH_REMOTE_ONLY=http (or websocket): only that transport's rows of both servers, no concurrency rows
  const only = process.env.BENCH_REMOTE_ONLY;
  if (only) {
    for (const kind of ['acp-kit', 'sdk']) {
      const s = await startServer(kind);
      try {
        const url = `${only === 'websocket' ? 'ws' : 'http'}://127.0.0.1:${s.port}/acp`;
        rows.push({ ...runNode(['--client', url, `${kind} ${only}`]), server: kind, profile: only });
      } finally {
        await s.stop();
      }
    }
    return { rows, many: [] };
  }
  const stdio = spawnSync(process.execPath, [here('./acp-kit-client.mjs'), '2'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
  });
  if (stdio.status !== 0) throw new Error(`bench/acp-kit-client.mjs failed: ${stdio.stdout}`);
  rows.push({
    ...JSON.parse(stdio.stdout.trim().split('\n').at(-1)),
    label: 'acp-kit v2, stdio',
    server: 'acp-kit',
    profile: 'stdio',
  });
  const many = [];
  for (const kind of ['acp-kit', 'sdk']) {
    const s = await startServer(kind);
    try {
      for (const profile of ['websocket', 'http']) {
        const url = `${profile === 'websocket' ? 'ws' : 'http'}://127.0.0.1:${s.port}/acp`;
        rows.push({ ...runNode(['--client', url, `${kind} ${profile}`]), server: kind, profile });
      }
      many.push({
        ...runNode(['--many', `ws://127.0.0.1:${s.port}/acp`, `${kind} websocket x${CONNS}`]),
        server: kind,
      });
    } finally {
      await s.stop();
    }
  }
  return { rows, many };
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

/** The markdown tables of {@link runRemoteBench}. */
export function formatRemoteRows({ rows, many }) {
  const stdio = rows.find((r) => r.profile === 'stdio') ?? { updatesPerSec: NaN };
  const label = (r) =>
    r.profile === 'stdio'
      ? 'acp-kit v2, stdio (reference)'
      : `${r.server === 'sdk' ? 'official SDK AcpServer (v1 app)' : 'acp-kit startAcpServer (v2)'}, ${r.profile === 'websocket' ? 'WebSocket' : 'Streamable HTTP'}`;
  const out = [
    '| server, transport | updates/s | % of stdio | vs SDK same transport | round trip p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const sdk = rows.find((x) => x.server === 'sdk' && x.profile === r.profile);
    out.push(
      `| ${label(r)} | ${fmt(r.updatesPerSec)} | ${fmt((100 * r.updatesPerSec) / stdio.updatesPerSec, 1)} % | ${r.server === 'acp-kit' && sdk ? `${fmt(r.updatesPerSec / sdk.updatesPerSec, 2)}x` : ''} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} |`,
    );
  }
  if (many.length === 0) return out.join('\n');
  out.push(
    '',
    `| ${CONNS} connections streaming at once (WebSocket) | updates/s, all | round trip p50 ms | p99 ms | server RSS per idle connection KB | JS heap + buffers per idle connection KB |`,
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const m of many)
    out.push(
      `| ${m.server === 'sdk' ? 'official SDK AcpServer' : 'acp-kit startAcpServer'} | ${fmt(m.updatesPerSec)} | ${fmt(m.p50, 2)} | ${fmt(m.p99, 2)} | ${fmt(m.idleKbPerConn, 1)} | ${fmt(m.idleHeapKbPerConn, 1)} |`,
    );
  return out.join('\n');
}

if (process.argv[2] === '--server') {
  await server(process.argv[3]);
} else if (process.argv[2] === '--client') {
  await client(process.argv[3], process.argv[4]);
  process.exit(0);
} else if (process.argv[2] === '--many') {
  await many(process.argv[3], process.argv[4]);
  process.exit(0);
} else if (process.argv[2] === '--idle-client') {
  const { close, idleKbPerConn, idleHeapKbPerConn, rssMb } = await openIdle(process.argv[3], true);
  report({ label: process.argv[4], conns: CONNS, idleKbPerConn, idleHeapKbPerConn, rssMb });
  await close();
  process.exit(0);
} else if (process.argv[2] === '--idle-holder') {
  await idleHolder(process.argv[3], Number(process.argv[4]), process.argv[5]);
  process.exit(0);
} else if (process.argv[2] === '--telemetry') {
  // telemetry on vs off, WebSocket: node bench/remote.mjs --telemetry
  console.log(
    `| acp-kit startAcpServer, WebSocket (${UPDATES.toLocaleString('en-US')} updates + ${ROUND_TRIPS} round trips) | updates/s | round trip p50 ms | p99 ms |\n|---|---:|---:|---:|`,
  );
  for (const kind of ['acp-kit', 'acp-kit-otel']) {
    const s = await startServer(kind);
    try {
      const r = runNode(['--client', `ws://127.0.0.1:${s.port}/acp`, kind]);
      console.log(
        `| telemetry ${kind === 'acp-kit' ? 'off (no SDK)' : 'on (metrics SDK + recorded spans)'} | ${fmt(r.updatesPerSec)} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} |`,
      );
    } finally {
      await s.stop();
    }
  }
} else if (process.argv[2] === '--idle') {
  // only the idle-connection memory, both servers side by side: node bench/remote.mjs --idle
  // the server holds a descriptor per connection: say so up front rather than fail at EMFILE mid-run
  const fdLimit = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
  if (CONNS + IDLE_FD_SPARE > fdLimit) {
    console.error(
      `bench/remote.mjs --idle: ${CONNS} connections need ~${CONNS + IDLE_FD_SPARE} descriptors in the server process, and its limit is ${fdLimit} (ulimit -n; above the hard limit only root can raise it): the largest run here is BENCH_REMOTE_CONNS=${fdLimit - IDLE_FD_SPARE}`,
    );
    process.exit(1);
  }
  console.log(
    `| server (WebSocket, ${CONNS} idle connections, a session each) | RSS KB per connection | JS heap + buffers KB per connection | server RSS MB with them |\n|---|---:|---:|---:|`,
  );
  // a server kind after --idle runs only that one (e.g. with BENCH_REMOTE_SNAPSHOT)
  for (const kind of process.argv[3] ? [process.argv[3]] : ['acp-kit', 'sdk']) {
    const s = await startServer(kind);
    try {
      const r = runNode(['--idle-client', `ws://127.0.0.1:${s.port}/acp`, `${kind} idle`]);
      console.log(
        `| ${kind === 'sdk' ? 'official SDK AcpServer' : 'acp-kit startAcpServer'} | ${fmt(r.idleKbPerConn, 1)} | ${fmt(r.idleHeapKbPerConn, 1)} | ${fmt(r.rssMb)} |`,
      );
    } finally {
      await s.stop();
    }
  }
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `Remote transports (bench/remote.mjs): ${UPDATES.toLocaleString('en-US')} agent_message_chunk updates + ${ROUND_TRIPS} round trips per row, acp-kit's client on loopback; goals WebSocket >= ${REMOTE_GOALS.wsOfStdio * 100} % of stdio, acp-kit >= ${REMOTE_GOALS.vsSdk}x the SDK's AcpServer`,
  );
  console.log(formatRemoteRows(await runRemoteBench()));
}

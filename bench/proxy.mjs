// acp-kit proxy overhead: the acp-kit v2 client/agent pair of the main bench, direct and through
// `acp-kit proxy` (plain, --record to a temp capture, --bridge 2, --bridge 2 --record). Alone: node bench/proxy.mjs
// Each mode runs in its own client process: node bench/proxy.mjs --client <direct|plain|record|bridge|bridge-record> [capture]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureAcpKitClient, percentile, peakRssMb, report, ROUND_TRIPS, UPDATES } from './common.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const BIN = here('../bin/acp-kit.js');
const AGENT = [process.execPath, here('./acp-kit-agent.mjs')];

/** Goals from issue 10: plain >= 70 % of direct, recording >= 50 %, added round-trip p50 <= 0.15 ms. */
export const PROXY_GOALS = { plain: 0.7, record: 0.5, addedP50Ms: 0.15, bridge: 0.4 };
/** The bridge row: the v2 client through `--bridge 2`, so the agent is offered v1 and every message is translated. */
const BRIDGE_FLAGS = ['--bridge', '2'];

async function client(mode, capture) {
  const { connect } = await import('@acp-kit/client');
  const argv =
    mode === 'direct'
      ? AGENT
      : [
          process.execPath,
          BIN,
          'proxy',
          ...(mode === 'record' || mode === 'bridge-record' ? ['--record', capture] : []),
          ...(mode.startsWith('bridge') ? BRIDGE_FLAGS : []),
          '--',
          ...AGENT,
        ];
  const conn = await connect({ command: argv[0], args: argv.slice(1), protocol: 2 });
  const session = await conn.newSession({ cwd: process.cwd() });
  const { rtts, secs } = await measureAcpKitClient(conn, session, `proxy bench ${mode}`);
  await conn.close();
  report({
    mode,
    updatesPerSec: UPDATES / secs,
    p50: percentile(rtts, 50),
    p99: percentile(rtts, 99),
    clientRssMb: peakRssMb(),
  });
}

/** Runs direct, plain and record, each in its own client process; returns one row per mode. */
export function runProxyBench() {
  const dir = mkdtempSync(join(tmpdir(), 'acp-proxy-bench-'));
  try {
    const rows = [];
    for (const mode of ['direct', 'plain', 'record', 'bridge', 'bridge-record']) {
      const capture = join(dir, 'capture.ndjson');
      const r = spawnSync(process.execPath, [here('./proxy.mjs'), '--client', mode, capture], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 600_000,
      });
      if (r.status !== 0)
        throw new Error(`bench/proxy.mjs --client ${mode} failed with status ${r.status}: ${r.stdout}`);
      const lines = r.stdout.trim().split('\n');
      const row = JSON.parse(lines[lines.length - 1]);
      if (mode === 'record' || mode === 'bridge-record') row.captureMb = statSync(capture).size / 1e6;
      rows.push(row);
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

/** The markdown table of {@link runProxyBench} rows. */
export function formatProxyRows(rows) {
  const direct = rows.find((r) => r.mode === 'direct');
  const out = [
    '| mode | updates/s | % of direct | round trip p50 ms | added p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const label =
      r.mode === 'direct'
        ? 'direct (acp-kit v2 client -> agent)'
        : r.mode === 'bridge'
          ? 'through acp-kit proxy --bridge 2 (v2 client, v1 agent)'
          : r.mode === 'bridge-record'
            ? `through acp-kit proxy --bridge 2 --record (both legs, ${fmt(r.captureMb, 1)} MB capture)`
            : r.mode === 'plain'
              ? 'through acp-kit proxy (plain)'
              : `through acp-kit proxy --record (${fmt(r.captureMb, 1)} MB capture)`;
    out.push(
      `| ${label} | ${fmt(r.updatesPerSec)} | ${fmt((100 * r.updatesPerSec) / direct.updatesPerSec, 1)} % | ${fmt(r.p50, 3)} | ${r.mode === 'direct' ? '' : fmt(r.p50 - direct.p50, 3)} | ${fmt(r.p99, 3)} |`,
    );
  }
  return out.join('\n');
}

if (process.argv[2] === '--client') {
  await client(process.argv[3], process.argv[4]);
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `acp-kit proxy: ${UPDATES.toLocaleString('en-US')} agent_message_chunk updates + ${ROUND_TRIPS} round trips, v2; goals: plain >= ${PROXY_GOALS.plain * 100} %, record >= ${PROXY_GOALS.record * 100} %, bridge >= ${PROXY_GOALS.bridge * 100} % of direct, added p50 <= ${PROXY_GOALS.addedP50Ms} ms`,
  );
  console.log(formatProxyRows(runProxyBench()));
}

// npm run bench: acp-kit vs the official SDK vs a raw floor, over real stdio pipes between two processes.
// Each mode's client spawns its agent, runs ROUND_TRIPS sequential requests and one prompt turn that
// streams UPDATES agent_message_chunk updates, and prints one JSON result line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROUND_TRIPS, UPDATES } from './common.mjs';
import { runStateStoreBench } from './state-store.mjs';
import { formatPeerBacklogRows, runPeerBacklogBench } from './peer-backlog.mjs';
import { CANCEL_TARGET_P99_MS, formatCancelRows, runCancelBench } from './cancel.mjs';
import { formatStartupRows, runStartupBench } from './startup.mjs';
import {
  RENDERER_TARGET_CHUNKS_PER_SEC,
  formatRendererRows,
  formatTerminalOutputRows,
  runRendererBench,
  runTerminalOutputBench,
} from './renderer.mjs';
import { PROXY_GOALS, formatProxyRows, runProxyBench } from './proxy.mjs';
import { CONDUCT_GOALS, formatConductRows, runConductBench } from './conduct.mjs';
import { REMOTE_GOALS, formatRemoteRows, runRemoteBench } from './remote.mjs';
import { capacityHeader, formatCapacityRows, runCapacityBench } from './capacity.mjs';
import { INSPECTOR_FRAMES, INSPECTOR_GOALS, formatInspectorRows, runInspectorBench } from './inspector.mjs';
import { PG_STORE_GOAL, formatPgStoreRows, runPgStoreBench } from './store-pg.mjs';
import { formatClusterRows, runClusterBench } from './cluster.mjs';
import { formatMcpOverAcpRows, runMcpOverAcpBench } from './mcp-over-acp.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));

function runClient(script, extraArgs = []) {
  const r = spawnSync(process.execPath, [here(script), ...extraArgs], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`${script} failed with status ${r.status}: ${r.stdout}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

console.log(
  `acp-kit bench: ${UPDATES.toLocaleString('en-US')} agent_message_chunk updates (~40 chars, validation on, client applies them to its session state), ${ROUND_TRIPS} sequential round trips, stdio pipes between two processes. node ${process.version}`,
);
const results = [];
for (const [script, args, label] of [
  ['acp-kit-client.mjs', ['2'], 'acp-kit v2 (agent runtime -> client runtime)'],
  ['acp-kit-client.mjs', ['1'], 'acp-kit v1 (agent runtime -> client runtime)'],
  ['sdk-client.mjs', [], 'official SDK 2.4.0 (v1 API)'],
  ['raw-client.mjs', [], 'raw floor (JSON.stringify + write / split + JSON.parse)'],
]) {
  const r = runClient(script, args);
  r.label = label;
  if (r.name === 'acp-kit') r.name = `acp-kit-v${r.protocol}`;
  results.push(r);
}
console.log('');
console.log('| mode | updates/s | round trip p50 ms | p99 ms | client peak RSS MB | agent peak RSS MB |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.label} | ${fmt(r.updatesPerSec)} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} | ${fmt(r.clientRssMb, 1)} | ${fmt(r.agentRssMb, 1)} |`,
  );
}
const by = Object.fromEntries(results.map((r) => [r.name, r]));

console.log('');
console.log(
  'Session state store: agent_message_chunks (~40 chars) appended to one message, text read every 1 000 chunks',
);
console.log('| chunks | total ms | ns/chunk |');
console.log('|---:|---:|---:|');
for (const r of runStateStoreBench()) console.log(`| ${fmt(r.chunks)} | ${fmt(r.ms)} | ${fmt(r.nsPerChunk)} |`);
console.log('');
console.log(
  `PostgreSQL store vs JSONL store (bench/store-pg.mjs): one turn of agent_message_chunk updates through the agent runtime in process, each persisted before it is sent; then through one real acp-kit serve process per store (built-in agent, demo model, v2 client over WebSocket on loopback, N sessions streaming at once); two raw pg rows in the same run (one INSERT per update awaited, one multi-row INSERT per tick); throwaway cluster; goal >= ${PG_STORE_GOAL * 100} % of JSONL`,
);
console.log(formatPgStoreRows(await runPgStoreBench()));
console.log('');
console.log(
  'Several acp-kit serve instances on one PostgreSQL (bench/cluster.mjs): fan-out latency owner -> client on another instance; 1,000 sessions resumed across 3 instances; throwaway cluster, all in this process',
);
console.log(formatClusterRows(await runClusterBench()));
console.log('');
console.log(
  'Peer inbox: notifications queued behind an async handler, then drained in order (flat ns/message = linear)',
);
console.log(formatPeerBacklogRows(await runPeerBacklogBench()));
console.log('');
console.log(
  `acp-kit run renderer: one agent message of N chunks through the state and run's text reporter to /dev/null; target >= ${RENDERER_TARGET_CHUNKS_PER_SEC.toLocaleString('en-US')} chunks/s, flat ns/chunk`,
);
console.log(formatRendererRows(runRendererBench()));
console.log('');
console.log(
  "acp-kit run with a command printing N MiB through the client's terminals (a real agent polling terminal/output, output to a pipe); flat ms/MiB = linear",
);
console.log(formatTerminalOutputRows(runTerminalOutputBench()));
console.log('');
// the ratios use the slower of our two protocol versions
const ours = Math.min(by['acp-kit-v2'].updatesPerSec, by['acp-kit-v1'].updatesPerSec);
console.log('');
console.log(
  `Cancel latency: session/cancel -> end of turn (v1 response / v2 idle), as seen by the client; target p99 < ${CANCEL_TARGET_P99_MS} ms`,
);
const cancel = await runCancelBench({ iterations: Number(process.env.BENCH_CANCEL_ITERATIONS ?? 30) });
console.log(formatCancelRows(cancel.rows));
console.log(`cancel p99 worst: ${Math.max(...cancel.rows.map((r) => r.p99)).toFixed(1)} ms`);

console.log('');
const startupRuns = Number(process.env.BENCH_STARTUP_RUNS ?? 9);
console.log(
  `Start-up: spawn -> initialize answer, median of ${startupRuns} runs (bench/startup.mjs; alone: node bench/startup.mjs [runs])`,
);
console.log(formatStartupRows(await runStartupBench({ runs: startupRuns })));

console.log('');
console.log(
  `acp-kit proxy (bench/proxy.mjs): the v2 pair direct and through the proxy; goals plain >= ${PROXY_GOALS.plain * 100} %, record >= ${PROXY_GOALS.record * 100} % of direct, added p50 <= ${PROXY_GOALS.addedP50Ms} ms`,
);
console.log(formatProxyRows(runProxyBench()));

console.log('');
console.log(
  "MCP over ACP (bench/mcp-over-acp.mjs): MCP SDK Client tools/call round trip from an agent process, to an McpServer object offered by the client over the ACP connection (v2, mcp/message), through acp-kit conduct's stdio bridge for an agent without the capability, vs to a stdio MCP server process; goal (issue 27 item 5): a comparison, no bound set",
);
console.log(formatMcpOverAcpRows(await runMcpOverAcpBench({ calls: Number(process.env.BENCH_MCP_CALLS ?? 1000) })));

console.log('');
console.log(
  `acp-kit conduct (bench/conduct.mjs): the v2 pair direct, through the conductor alone, and through 1, 3 and 5 pass-through components, as programs and in the conductor's process (--component); goals added p50 <= ${CONDUCT_GOALS.addedP50PerHopMs} ms per hop, 3 hops >= ${CONDUCT_GOALS.threeHopsOfDirect * 100} % of direct`,
);
console.log(formatConductRows(runConductBench()));

console.log('');
console.log(
  `Remote transports (bench/remote.mjs): WebSocket and Streamable HTTP beside stdio, acp-kit's server and the official SDK's AcpServer; goals WebSocket >= ${REMOTE_GOALS.wsOfStdio * 100} % of stdio, acp-kit >= ${REMOTE_GOALS.vsSdk}x the SDK`,
);
console.log(formatRemoteRows(await runRemoteBench()));

console.log('');
console.log(capacityHeader());
console.log(formatCapacityRows(await runCapacityBench()));

console.log('');
const oursP50 = Math.max(by['acp-kit-v2'].p50, by['acp-kit-v1'].p50);
console.log(`acp-kit/sdk round-trip p50: ${(oursP50 / by.sdk.p50).toFixed(2)} (lower is better)`);
console.log(`acp-kit/sdk throughput: ${(ours / by.sdk.updatesPerSec).toFixed(2)}`);
console.log(`acp-kit/raw throughput: ${(ours / by.raw.updatesPerSec).toFixed(2)}`);
console.log('');
console.log(
  `acp-kit inspect (bench/inspector.mjs): headless /usr/bin/chromium on a generated ${INSPECTOR_FRAMES.toLocaleString('en-US')}-frame capture; goals first paint < ${INSPECTOR_GOALS.firstPaintMs} ms, no long task > ${INSPECTOR_GOALS.longTaskMs} ms while scrolling`,
);
console.log(formatInspectorRows(await runInspectorBench()));

console.log('');
console.log(
  'acp-kit/checker (bench/checker.mjs): a whole check of both versions against the built-in agent (demo model), in this process and as a process per case; median of 3',
);
const { formatCheckerRows, runCheckerBench } = await import('./checker.mjs');
console.log(formatCheckerRows(await runCheckerBench({ runs: 3 })));

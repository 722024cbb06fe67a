// acp-kit conduct overhead: the acp-kit v2 client/agent pair of the main bench, direct and through a
// proxy chain of 1, 3 and 5 pass-through components (bench/pass-component.mjs, a definition with no
// handlers), each a process (`-- node bench/pass-component.mjs`) or in the conductor's process
// (`--component bench/pass-component.mjs`). Alone: node bench/conduct.mjs. Each mode runs in its own
// client process: node bench/conduct.mjs --client <direct|in-0|1|3|5|in-1|in-3|in-5> (in-0: the conductor
// with no component, its fixed cost)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { measureAcpKitClient, percentile, peakRssMb, report, ROUND_TRIPS, UPDATES } from './common.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const BIN = here('../bin/acp-kit.js');
// BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes to every node process of the chain:
// NODE_OPTIONS does not take --cpu-prof
const NODE = [process.execPath, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const AGENT = [...NODE, here('./acp-kit-agent.mjs')];
const COMPONENT = [...NODE, here('./pass-component.mjs')];
/** The rows: direct, then chains of process components, then of in-process components. */
const MODES = ['direct', 'in-0', '1', '3', '5', 'in-1', 'in-3', 'in-5'];

/** Goals from issue 27 item 5: each hop adds no more than the plain proxy (about 0.15 ms p50); 3 hops keep >= 50 % of direct. */
export const CONDUCT_GOALS = { addedP50PerHopMs: 0.15, threeHopsOfDirect: 0.5 };

/**
 * CPU milliseconds (user + system) used so far by process `pid` and every process below it, by role
 * (Linux /proc only; undefined elsewhere), with the system part and the read/write system calls
 * (`sys.<role>`, `syscalls.<role>`). Wall time on a loaded 2-core machine says little; the CPU a
 * chain spends per update does not depend on the load, and the system calls say how well writes batch.
 */
function treeCpuMs(pid, out = { sys: {}, syscalls: {} }) {
  let stat, children, args, io;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    io = readFileSync(`/proc/${pid}/io`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux)
  const sys = Number(fields[12]) * 10;
  const ms = Number(fields[11]) * 10 + sys;
  const calls = ['syscr', 'syscw'].reduce((n, k) => n + Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(io)?.[1] ?? 0), 0);
  const role = args.includes('conduct')
    ? 'conductor'
    : args.some((a) => a.endsWith('pass-component.mjs'))
      ? 'components'
      : 'agent';
  out[role] = (out[role] ?? 0) + ms;
  out.sys[role] = (out.sys[role] ?? 0) + sys;
  out.syscalls[role] = (out.syscalls[role] ?? 0) + calls;
  for (const c of children) if (treeCpuMs(Number(c), out) === undefined) return undefined;
  return out;
}

/** CPU ms by role spent between two {@link treeCpuMs} snapshots, with the client's own. */
function cpuDelta(before, after, clientMs) {
  if (!before || !after) return undefined;
  const d = { client: clientMs };
  const sub = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - (b[k] ?? 0)]));
  for (const k of Object.keys(after)) if (k !== 'sys' && k !== 'syscalls') d[k] = after[k] - (before[k] ?? 0);
  d.total = Object.values(d).reduce((a, b) => a + b, 0);
  d.sys = sub(after.sys, before.sys);
  d.syscalls = sub(after.syscalls, before.syscalls);
  return d;
}

async function client(mode) {
  const { connect } = await import('@acp-kit/client');
  const inProcess = mode.startsWith('in-');
  const hops = mode === 'direct' ? 0 : Number(mode.replace('in-', ''));
  const chain = inProcess
    ? Array.from({ length: hops }, () => ['--component', here('./pass-component.mjs')]).flat()
    : Array.from({ length: hops }, () => ['--', ...COMPONENT]).flat();
  const argv = mode === 'direct' ? AGENT : [...NODE, BIN, 'conduct', ...chain, '--', ...AGENT];
  const conn = await connect({ command: argv[0], args: argv.slice(1), protocol: 2 });
  const session = await conn.newSession({ cwd: process.cwd() });
  const pid = conn.agentProcess?.process.pid;
  const cpuBefore = pid === undefined ? undefined : treeCpuMs(pid);
  const ownBefore = process.cpuUsage();
  const { rtts, secs } = await measureAcpKitClient(conn, session, `conduct bench ${mode}`);
  const own = process.cpuUsage(ownBefore);
  const cpuMs = cpuDelta(cpuBefore, pid === undefined ? undefined : treeCpuMs(pid), (own.user + own.system) / 1000);
  await conn.close();
  report({
    mode,
    hops,
    inProcess,
    updatesPerSec: UPDATES / secs,
    p50: percentile(rtts, 50),
    p99: percentile(rtts, 99),
    clientRssMb: peakRssMb(),
    cpuMs,
  });
}

/** Runs direct and the 1-, 3- and 5-component chains, each in its own client process; one row per mode. */
export function runConductBench() {
  const rows = [];
  for (const mode of MODES) {
    const r = spawnSync(process.execPath, [here('./conduct.mjs'), '--client', mode], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 600_000,
    });
    if (r.status !== 0)
      throw new Error(`bench/conduct.mjs --client ${mode} failed with status ${r.status}: ${r.stdout}`);
    const lines = r.stdout.trim().split('\n');
    rows.push(JSON.parse(lines[lines.length - 1]));
  }
  return rows;
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

/** The goals beside a row (issue 27 item 5), each with whether this run met it. */
function goalCell(r, direct, added) {
  if (r.hops === 0) return '';
  const met = (ok) => (ok ? 'met' : 'not met');
  const hop = `added p50 <= ${CONDUCT_GOALS.addedP50PerHopMs} ms/hop: ${met(added <= CONDUCT_GOALS.addedP50PerHopMs)}`;
  if (r.hops !== 3) return hop;
  const share = r.updatesPerSec / direct.updatesPerSec;
  return `${hop}; >= ${CONDUCT_GOALS.threeHopsOfDirect * 100} % of direct: ${met(share >= CONDUCT_GOALS.threeHopsOfDirect)}`;
}

/** CPU ms per 1,000 updates of a row's measured part (updates and round trips), by all its processes. */
function cpuCell(r) {
  if (!r.cpuMs) return 'n/a';
  const per = (ms) => fmt((1000 * ms) / UPDATES, 1);
  if (r.mode === 'direct') return per(r.cpuMs.total);
  if (r.hops === 0) return `${per(r.cpuMs.total)} (${per(r.cpuMs.conductor ?? NaN)})`;
  // in process the components' work is the conductor's
  const each = r.inProcess ? 'in it' : per((r.cpuMs.components ?? NaN) / r.hops);
  return `${per(r.cpuMs.total)} (${per(r.cpuMs.conductor ?? NaN)}, ${each})`;
}

/** The markdown table of {@link runConductBench} rows. */
export function formatConductRows(rows) {
  const direct = rows.find((r) => r.mode === 'direct');
  const out = [
    '| mode | updates/s | % of direct | round trip p50 ms | added p50 ms per hop | p99 ms | CPU ms per 1,000 updates: all processes (conductor, each component) | goal |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const label =
      r.mode === 'direct'
        ? 'direct (acp-kit v2 client -> agent)'
        : r.hops === 0
          ? 'through acp-kit conduct, no component (its fixed cost)'
          : `through acp-kit conduct, ${r.hops}${r.inProcess ? ' in-process' : ''} component${r.hops === 1 ? '' : 's'}`;
    const added = (r.p50 - direct.p50) / r.hops;
    const perHop = r.hops === 0 ? '' : fmt(added, 3);
    out.push(
      `| ${label} | ${fmt(r.updatesPerSec)} | ${fmt((100 * r.updatesPerSec) / direct.updatesPerSec, 1)} % | ${fmt(r.p50, 3)} | ${perHop} | ${fmt(r.p99, 3)} | ${cpuCell(r)} | ${goalCell(r, direct, added)} |`,
    );
  }
  return out.join('\n');
}

if (process.argv[2] === '--client') {
  await client(process.argv[3]);
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `acp-kit conduct: ${UPDATES.toLocaleString('en-US')} agent_message_chunk updates + ${ROUND_TRIPS} round trips, v2; goals: added p50 <= ${CONDUCT_GOALS.addedP50PerHopMs} ms per hop, 3 hops >= ${CONDUCT_GOALS.threeHopsOfDirect * 100} % of direct`,
  );
  console.log(formatConductRows(runConductBench()));
}

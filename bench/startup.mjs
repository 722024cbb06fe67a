// Start-up: time from spawning an agent process to the `initialize` answer on its stdout, as an
// editor that spawns one agent per thread sees it. Median of RUNS runs per agent, run in turn
// (round-robin) so that load on a shared machine hits every row alike.
// `node bench/startup.mjs [runs]` prints the table alone; `npm run bench` includes it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));

/** The agents measured: label, argv after `node`. */
export const STARTUP_AGENTS = [
  { key: 'bare', label: 'bare node (answers initialize by hand)', args: [here('startup-bare-agent.mjs')] },
  { key: 'minimal', label: 'minimal acp-kit agent (runAgentOnStdio)', args: [here('startup-minimal-agent.mjs')] },
  { key: 'sdk', label: 'official SDK 2.4.0 agent', args: [here('startup-sdk-agent.mjs')] },
  {
    key: 'acp-kit-agent',
    label: '`acp-kit agent` (built-in coding agent, demo model)',
    args: [BIN, 'agent', '--model', 'demo'],
  },
];

const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2, info: { name: 'startup-bench', version: '0' }, capabilities: {} } })}\n`;

/** Milliseconds from spawn to the first stdout line that answers request 1. */
export function timeToInitialize(args, env) {
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${args.join(' ')}: no initialize answer within 30 s\nstdout: ${out}\nstderr: ${err}`));
    }, 30_000);
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const line = out
        .split('\n')
        .find((l) => l.includes('"id":1') && (l.includes('"result"') || l.includes('"error"')));
      if (!line) return;
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      clearTimeout(timer);
      child.on('close', () => (line.includes('"result"') ? done(ms) : fail(new Error(`${args.join(' ')}: ${line}`))));
      child.stdin.end();
    });
    child.on('error', fail);
    child.stdin.write(INIT);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Runs every agent `runs` times; returns rows with the median and min ms per agent. */
export async function runStartupBench({ runs = 9 } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'acp-kit-startup-'));
  try {
    const env = { ...process.env, ACP_KIT_DATA_DIR: data };
    const times = new Map(STARTUP_AGENTS.map((a) => [a.key, []]));
    for (let i = 0; i < runs; i++) {
      for (const a of STARTUP_AGENTS) times.get(a.key).push(await timeToInitialize(a.args, env));
    }
    return STARTUP_AGENTS.map((a) => ({ ...a, median: median(times.get(a.key)), min: Math.min(...times.get(a.key)) }));
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

/** Markdown table; goals: minimal agent within 30 ms of bare node, `acp-kit agent` within 80 ms. */
export function formatStartupRows(rows) {
  const bare = rows.find((r) => r.key === 'bare').median;
  const goal = { minimal: 30, 'acp-kit-agent': 80 };
  const lines = ['| agent | median ms | min ms | vs bare node | goal |', '|---|---:|---:|---:|---|'];
  for (const r of rows) {
    const delta = r.key === 'bare' ? '' : `+${(r.median - bare).toFixed(0)} ms`;
    const g =
      goal[r.key] === undefined ? '' : `<= +${goal[r.key]} ms ${r.median - bare <= goal[r.key] ? 'met' : 'NOT met'}`;
    lines.push(`| ${r.label} | ${r.median.toFixed(0)} | ${r.min.toFixed(0)} | ${delta} | ${g} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 9);
  console.log(`Start-up: spawn -> initialize answer, median of ${runs} runs (node ${process.version})`);
  console.log(formatStartupRows(await runStartupBench({ runs })));
}

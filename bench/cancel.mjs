// Cancel latency: from just before the client sends `session/cancel` to the end of the turn as the
// client process sees it (v1: the `session/prompt` response; v2: the idle `state_update`), for the
// built-in coding agent (a) streaming text from the demo model and (b) running `sleep 30`: v2 with an
// agent-side process + display terminal, v1 with a client terminal (acp-kit's client services) and
// v1 with an agent-side process. Real processes over stdio pipes. Target: p99 < 50 ms.
//
//   node bench/cancel.mjs [iterations]      (standalone: prints a table; needs `npm run build`)
//   import { runCancelBench } from './cancel.mjs'; await runCancelBench({ iterations: 30 })
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@acp-kit/client';
import { percentile } from './common.mjs';

const AGENT = fileURLToPath(new URL('./cancel-agent.mjs', import.meta.url));
const WARMUP = 3;
/** p99 target of the issue, in ms. */
export const CANCEL_TARGET_P99_MS = 50;

const SCENARIOS = [
  { scenario: 'streaming', version: 1, prompt: 'tell me a long story please', ready: chunksArrived(5) },
  { scenario: 'streaming', version: 2, prompt: 'tell me a long story please', ready: chunksArrived(5) },
  {
    scenario: 'command (agent process + display terminal)',
    version: 2,
    prompt: 'run sleep 30',
    ready: commandRunning(),
  },
  {
    scenario: 'command (client terminal)',
    version: 1,
    terminals: true,
    prompt: 'run sleep 30',
    ready: commandRunning(),
  },
  { scenario: 'command (agent process)', version: 1, prompt: 'run sleep 30', ready: commandRunning() },
];

/** Ready once `n` agent message chunks of this turn arrived. */
function chunksArrived(n) {
  return (session) =>
    new Promise((resolve) => {
      let seen = 0;
      const off = session.onUpdate((u) => {
        if (u.sessionUpdate === 'agent_message_chunk' && ++seen >= n) {
          off();
          resolve();
        }
      });
    });
}

/** Ready once the tool call is `in_progress` and the command had time to start. */
function commandRunning(settleMs = 100) {
  return (session) =>
    new Promise((resolve) => {
      const off = session.onUpdate((u) => {
        if (u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress') {
          off();
          setTimeout(resolve, settleMs);
        }
      });
    });
}

async function runScenario(s, iterations) {
  const cwd = mkdtempSync(join(tmpdir(), 'acp-kit-cancel-bench-'));
  let stderr = '';
  const conn = await connect({
    command: process.execPath,
    args: [AGENT],
    protocol: s.version,
    terminals: s.terminals ?? false,
    onStderr: (t) => (stderr += t),
  });
  try {
    const session = await conn.newSession({ cwd });
    const samples = [];
    for (let i = 0; i < WARMUP + iterations; i++) {
      const ready = s.ready(session);
      const done = session.prompt(s.prompt);
      await ready;
      const t0 = performance.now();
      session.cancel();
      const { stopReason } = await done;
      const ms = performance.now() - t0;
      if (stopReason !== 'cancelled')
        throw new Error(`${s.scenario} v${s.version}: stop reason ${stopReason}, expected cancelled`);
      if (i >= WARMUP) samples.push(ms);
    }
    samples.sort((a, b) => a - b);
    return {
      scenario: s.scenario,
      version: s.version,
      n: samples.length,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      max: samples[samples.length - 1],
    };
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : e}${stderr ? `\nagent stderr:\n${stderr}` : ''}`, { cause: e });
  } finally {
    try {
      await conn.close();
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
}

/**
 * Runs every scenario (one agent process each) for `iterations` measured cancels (after 3 warm-ups).
 * @param {{ iterations?: number }} [options]
 * @returns {Promise<{ rows: Array<{ scenario: string, version: 1 | 2, n: number, p50: number, p99: number, max: number }> }>}
 */
export async function runCancelBench({ iterations = 30 } = {}) {
  const rows = [];
  for (const s of SCENARIOS) rows.push(await runScenario(s, iterations));
  return { rows };
}

/** Markdown table of the rows. */
export function formatCancelRows(rows) {
  const f = (n) => n.toFixed(1);
  return [
    '| scenario | protocol | n | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.scenario} | v${r.version} | ${r.n} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} |`),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const iterations = Number(process.argv[2] ?? process.env.BENCH_CANCEL_ITERATIONS ?? 30);
  const t = performance.now();
  const { rows } = await runCancelBench({ iterations });
  console.log(
    `Cancel latency: session/cancel -> end of turn as seen by the client (v1 prompt response / v2 idle), built-in agent, demo model ${process.env.BENCH_DELTA_MS ?? 5} ms/word. node ${process.version}`,
  );
  console.log(formatCancelRows(rows));
  const worst = Math.max(...rows.map((r) => r.p99));
  console.log(
    `worst p99 ${worst.toFixed(1)} ms (target < ${CANCEL_TARGET_P99_MS} ms): ${worst < CANCEL_TARGET_P99_MS ? 'ok' : 'MISSED'}; ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  process.exit(0);
}

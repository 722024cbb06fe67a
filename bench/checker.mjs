// The conformance checker (`acp-kit/checker`): a whole check of both protocol versions (every case)
// against the built-in coding agent with the demo model, in this process (`checkAgent(agentInProcess
// (definition))`: a runtime per connection on in-memory streams) and as processes (`acp-kit check
// agent -- acp-kit agent`, 4 lanes at once: agent processes shared between the cases that allow it, the
// default, and one per case, `--process-per-case`). Median of RUNS runs each, alternating.
// `node bench/checker.mjs [runs]` prints the table alone; `npm run bench` includes it.
import { fileURLToPath } from 'node:url';
import { agentInProcess, checkAgent } from '@acp-kit/tools/checker';
import { createCodingAgent, createDemoModel } from '@acp-kit/coding-agent';
import { percentile } from './common.mjs';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));

/** One whole check; its wall time, CPU of this process (user + system) and outcome. */
async function once(agent, options = {}) {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const run = await checkAgent(agent, { protocols: [1, 2], ...options });
  const used = process.cpuUsage(cpu);
  if (!run.conformant)
    throw new Error(
      `bench/checker.mjs: the built-in agent is not conformant: ${run.requirements
        .filter((r) => r.status === 'fail')
        .map((r) => r.id)
        .join(', ')}`,
    );
  return { ms: performance.now() - t0, cpuMs: (used.user + used.system) / 1000, cases: run.cases.length };
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export async function runCheckerBench({ runs = 3 } = {}) {
  const modes = [
    {
      label: 'in process (agentInProcess, in-memory store)',
      agent: () =>
        agentInProcess(createCodingAgent({ model: createDemoModel(), info: { name: 'acp-kit-agent', version: '0' } })),
    },
    {
      label: 'processes, shared between cases (`acp-kit agent --model demo`, 4 lanes)',
      agent: () => ({ command: process.execPath, args: [BIN, 'agent', '--model', 'demo'], env: {} }),
    },
    {
      label: 'a process per case (`--process-per-case`, 4 at once)',
      agent: () => ({ command: process.execPath, args: [BIN, 'agent', '--model', 'demo'], env: {} }),
      options: { processPerCase: true },
    },
  ];
  const samples = modes.map(() => []);
  for (let i = 0; i < runs; i++)
    for (const [k, m] of modes.entries()) samples[k].push(await once(m.agent(), m.options));
  return modes.map((m, k) => ({
    mode: m.label,
    cases: samples[k][0].cases,
    ms: median(samples[k].map((s) => s.ms)),
    cpuMs: median(samples[k].map((s) => s.cpuMs)),
  }));
}

export function formatCheckerRows(rows) {
  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  return [
    '| mode | cases (v1 + v2) | wall ms | CPU ms of the checking process |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.mode} | ${r.cases} | ${fmt(r.ms)} | ${fmt(r.cpuMs)} |`),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(formatCheckerRows(await runCheckerBench({ runs: Number(process.argv[2] ?? 3) })));

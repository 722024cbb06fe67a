// The built-in coding agent for the cancel-latency bench: demo model streaming one word every
// BENCH_DELTA_MS (default 5) ms, `auto` mode (commands run without asking), sessions in memory.
import { InMemorySessionStore, runAgentOnStdio } from '@acp-kit/agent';
import { createCodingAgent, createDemoModel } from '@acp-kit/coding-agent';

const model = createDemoModel({ delayMs: Number(process.env.BENCH_DELTA_MS ?? 5) });
runAgentOnStdio(createCodingAgent({ model, mode: 'auto' }), {
  store: new InMemorySessionStore(),
  logger: {
    debug() {},
    info() {},
    warn: (m) => process.stderr.write(`${m}\n`),
    error: (m) => process.stderr.write(`${m}\n`),
  },
});

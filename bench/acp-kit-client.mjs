// acp-kit client runtime: validates each update, decodes it and applies it to the session state.
import { fileURLToPath } from 'node:url';
import { connect } from '@acp-kit/client';
import { measureAcpKitClient, peakRssMb, percentile, report, UPDATES } from './common.mjs';

const protocol = Number(process.argv[2] ?? 2);
const conn = await connect({
  command: process.execPath,
  args: [
    ...(process.env.BENCH_AGENT_NODE_ARGS ? process.env.BENCH_AGENT_NODE_ARGS.split(' ') : []),
    fileURLToPath(new URL('./acp-kit-agent.mjs', import.meta.url)),
  ],
  protocol,
});
const session = await conn.newSession({ cwd: process.cwd() });

const { rtts, secs } = await measureAcpKitClient(conn, session, 'acp-kit');
const agent = await conn.extRequest('_bench/rss', {});
report({
  name: 'acp-kit',
  protocol: conn.protocolVersion,
  updatesPerSec: UPDATES / secs,
  p50: percentile(rtts, 50),
  p99: percentile(rtts, 99),
  clientRssMb: peakRssMb(),
  agentRssMb: agent.rssMb,
});
await conn.close();
process.exit(0);

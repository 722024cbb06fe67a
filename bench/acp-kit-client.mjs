// acp-kit client runtime: validates each update, decodes it and applies it to the session state.
import { fileURLToPath } from 'node:url';
import { connect } from '../dist/client/index.js';
import { CHUNK_TEXT, peakRssMb, percentile, report, ROUND_TRIPS, UPDATES } from './common.mjs';

const protocol = Number(process.argv[2] ?? 2);
const conn = await connect({ command: process.execPath, args: [...(process.env.BENCH_AGENT_NODE_ARGS ? process.env.BENCH_AGENT_NODE_ARGS.split(' ') : []), fileURLToPath(new URL('./acp-kit-agent.mjs', import.meta.url))], protocol });
const session = await conn.newSession({ cwd: process.cwd() });

const rtts = [];
for (let i = 0; i < ROUND_TRIPS; i++) {
  const t = process.hrtime.bigint();
  await conn.extRequest('_bench/ping', {});
  rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
}
const t0 = process.hrtime.bigint();
const result = await session.prompt(String(UPDATES));
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
if (result.stopReason !== 'end_turn') throw new Error(`acp-kit: stop reason ${result.stopReason}`);
const agentMessages = session.state.messageList.filter((m) => m.role === 'agent');
const text = agentMessages.map((m) => m.text).join('');
if (text.length !== UPDATES * CHUNK_TEXT.length) throw new Error(`acp-kit: got ${text.length} chars in ${agentMessages.length} messages`);
const agent = await conn.extRequest('_bench/rss', {});
rtts.sort((a, b) => a - b);
report({ name: 'acp-kit', protocol: conn.protocolVersion, updatesPerSec: UPDATES / secs, p50: percentile(rtts, 50), p99: percentile(rtts, 99), clientRssMb: peakRssMb(), agentRssMb: agent.rssMb });
await conn.close();
process.exit(0);

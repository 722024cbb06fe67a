// Official SDK client (v1 API) applying updates to a simple message store.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { CHUNK_TEXT, peakRssMb, percentile, report, ROUND_TRIPS, UPDATES } from './common.mjs';

const child = spawn(process.execPath, [fileURLToPath(new URL('./sdk-agent.mjs', import.meta.url))], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
// the "session state": chunks grouped per messageId
const messages = new Map();
const app = acp.client({ name: 'sdk-bench-client' }).onNotification('session/update', ({ params }) => {
  const u = params.update;
  if (u.sessionUpdate === 'agent_message_chunk') {
    let m = messages.get(u.messageId);
    if (!m) messages.set(u.messageId, (m = []));
    m.push(u.content);
  }
});
const conn = app.connect(stream);
const cx = conn.agent;
await cx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
const { sessionId } = await cx.request('session/new', { cwd: process.cwd(), mcpServers: [] });

const rtts = [];
for (let i = 0; i < ROUND_TRIPS; i++) {
  const t = process.hrtime.bigint();
  await cx.request('_bench/ping', {});
  rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
}
const t0 = process.hrtime.bigint();
await cx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }], _meta: { count: UPDATES } });
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const got = messages.get('m1') ?? [];
if (got.length !== UPDATES || got.map((c) => c.text).join('').length !== UPDATES * CHUNK_TEXT.length)
  throw new Error(`sdk: got ${got.length} chunks`);
const agent = await cx.request('_bench/rss', {});
rtts.sort((a, b) => a - b);
report({
  name: 'sdk',
  updatesPerSec: UPDATES / secs,
  p50: percentile(rtts, 50),
  p99: percentile(rtts, 99),
  clientRssMb: peakRssMb(),
  agentRssMb: agent.rssMb,
});
conn.close();
child.stdin.end();
process.exit(0);

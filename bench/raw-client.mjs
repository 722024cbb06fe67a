import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHUNK_TEXT, peakRssMb, percentile, report, ROUND_TRIPS, UPDATES } from './common.mjs';

const child = spawn(process.execPath, [fileURLToPath(new URL('./raw-agent.mjs', import.meta.url))], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
let buf = '';
let nextId = 1;
const pending = new Map();
const chunks = [];
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d) => {
  // a tuned reader: lines found by position in the chunk, one JSON.parse each, the unfinished tail
  // kept once per read (not a string copy per line)
  buf += d;
  let start = 0;
  let i;
  while ((i = buf.indexOf('\n', start)) >= 0) {
    const m = JSON.parse(buf.slice(start, i));
    start = i + 1;
    if (m.method === 'session/update') chunks.push(m.params.update.content.text);
    else if (m.id !== undefined) {
      pending.get(m.id)(m.result);
      pending.delete(m.id);
    }
  }
  buf = buf.slice(start);
});
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });

const rtts = [];
for (let i = 0; i < ROUND_TRIPS; i++) {
  const t = process.hrtime.bigint();
  await request('_bench/ping', {});
  rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
}
const t0 = process.hrtime.bigint();
await request('session/prompt', { sessionId: 's1', count: UPDATES });
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
if (chunks.length !== UPDATES || chunks.join('').length !== UPDATES * CHUNK_TEXT.length)
  throw new Error(`raw: got ${chunks.length} chunks`);
const agent = await request('_bench/rss', {});
rtts.sort((a, b) => a - b);
report({
  name: 'raw',
  updatesPerSec: UPDATES / secs,
  p50: percentile(rtts, 50),
  p99: percentile(rtts, 99),
  clientRssMb: peakRssMb(),
  agentRssMb: agent.rssMb,
});
child.stdin.end();

// Raw floor: no framework, as a tuned hand-written pair would do it: lines found by position, one
// JSON.parse each in; JSON.stringify per chunk, written in batches of 64 KiB with backpressure out.
import { CHUNK_TEXT, peakRssMb } from './common.mjs';

let buf = '';
const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let start = 0;
  let i;
  while ((i = buf.indexOf('\n', start)) >= 0) {
    const m = JSON.parse(buf.slice(start, i));
    start = i + 1;
    if (m.method === '_bench/ping') out({ jsonrpc: '2.0', id: m.id, result: {} });
    else if (m.method === '_bench/rss') out({ jsonrpc: '2.0', id: m.id, result: { rssMb: peakRssMb() } });
    else if (m.method === 'session/prompt') void stream(m.id, m.params.count);
  }
  buf = buf.slice(start);
});
process.stdin.on('end', () => process.exit(0));

/**
 * The chunks in batches of up to 64 KiB, waiting for 'drain' when the pipe is full (a tuned writer
 * keeps neither the whole turn in memory nor a write per chunk).
 */
async function stream(id, n) {
  let batch = '';
  for (let k = 0; k < n; k++) {
    batch +=
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 's1',
          update: {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'm1',
            content: { type: 'text', text: CHUNK_TEXT },
          },
        },
      }) + '\n';
    if (batch.length > 1 << 16) {
      const more = process.stdout.write(batch);
      batch = '';
      if (!more) await new Promise((r) => process.stdout.once('drain', r));
    }
  }
  process.stdout.write(batch);
  out({ jsonrpc: '2.0', id, result: { stopReason: 'end_turn' } });
}

// Raw floor: no framework. Line split + JSON.parse in, JSON.stringify + write out.
import { CHUNK_TEXT, peakRssMb } from './common.mjs';

let buf = '';
const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    const m = JSON.parse(line);
    if (m.method === '_bench/ping') out({ jsonrpc: '2.0', id: m.id, result: {} });
    else if (m.method === '_bench/rss') out({ jsonrpc: '2.0', id: m.id, result: { rssMb: peakRssMb() } });
    else if (m.method === 'session/prompt') {
      const n = m.params.count;
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
        if (batch.length > 1 << 20) {
          process.stdout.write(batch);
          batch = '';
        }
      }
      process.stdout.write(batch);
      out({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
    }
  }
});
process.stdin.on('end', () => process.exit(0));

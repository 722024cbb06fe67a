// acp-kit agent runtime streaming agent_message_chunk updates through the neutral model + codec.
import { serveAgent } from '@acp-kit/agent';
import { stdioTransport } from '@acp-kit/protocol/rpc';
import { CHUNK_TEXT, peakRssMb } from './common.mjs';

const conn = serveAgent(
  {
    info: { name: 'acp-kit-bench-agent', version: '0.0.0' },
    async prompt(turn) {
      const n = Number(turn.prompt[0]?.text ?? 0);
      const messageId = turn.session.newId('msg');
      for (let k = 0; k < n; k++) {
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId,
          content: { type: 'text', text: CHUNK_TEXT },
        });
      }
      return 'end_turn';
    },
  },
  stdioTransport(),
  // the SDK and raw agents keep no history either
  { store: null, logger: { debug() {}, info() {}, warn() {}, error: (m) => process.stderr.write(String(m) + '\n') } },
);
conn.peer.onRequest('_bench/ping', () => ({}));
conn.peer.onRequest('_bench/rss', () => ({ rssMb: peakRssMb() }));
process.on('SIGTERM', () => process.exit(0));
await conn.closed;
process.exit(0);

// Official SDK agent (v1 API) streaming agent_message_chunk updates.
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { CHUNK_TEXT, peakRssMb } from './common.mjs';

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
let sessions = 0;
const app = acp
  .agent({ name: 'sdk-bench-agent' })
  .onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
  .onRequest('session/new', () => ({ sessionId: `s${++sessions}` }))
  .onRequest('session/prompt', async ({ params, client }) => {
    const n = Number(params._meta?.count ?? 0);
    for (let k = 0; k < n; k++) {
      await client.notify('session/update', {
        sessionId: params.sessionId,
        update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: CHUNK_TEXT } },
      });
    }
    return { stopReason: 'end_turn' };
  })
  .onRequest('*', ({ method }) => {
    if (method === '_bench/ping') return {};
    if (method === '_bench/rss') return { rssMb: peakRssMb() };
    throw acp.RequestError.methodNotFound(method);
  });
const conn = app.connect(stream);
await conn.closed;
process.exit(0);

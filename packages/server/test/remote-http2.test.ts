// The Streamable HTTP profile over HTTP/2, which the remote transport RFD requires (ACP-RFD-HTTP-02): the server's
// cleartext HTTP/2 endpoint (h2c, prior knowledge; startAcpServer `http2Port`, acp-kit serve
// --http2-port) and the client's `http2: true`. One HTTP/2 connection carries the event stream and
// the POSTs; a turn streams in order as over HTTP/1.1.
import { afterEach, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import type { AcpServer } from '../src/index.js';
import { chunksPrompt, startE2EServer, TOKEN } from '../../../test/support/remote.js';

const servers: AcpServer[] = [];
const clients: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close(1000)));
});

it.each([1, 2] as const)(
  'v%s over h2c: a turn streams every chunk in order; the HTTP/2 port speaks only HTTP/2',
  async (protocol) => {
    const server = await startE2EServer({ http2Port: 0 });
    servers.push(server);
    expect(server.http2Url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    expect(server.http2Url).not.toBe(server.url);

    const conn = await connect({ url: server.http2Url!, token: TOKEN, http2: true, protocol });
    clients.push(conn);
    expect(conn.protocolVersion).toBe(protocol);
    const s = await conn.newSession({ cwd: '/tmp' });
    const seen: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') seen.push(u.content.text);
    });
    expect((await s.prompt(chunksPrompt(300))).stopReason).toBe('end_turn');
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => `c${i} `));

    // an HTTP/1.1 client gets nowhere on that port: the turn above did go over HTTP/2
    await expect(
      connect({ url: server.http2Url!, token: TOKEN, protocol, initializeTimeoutMs: 5000 }),
    ).rejects.toThrow();
  },
  30_000,
);

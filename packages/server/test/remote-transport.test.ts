// The two remote profiles (WebSocket, Streamable HTTP) end to end: acp-kit's client over
// connect({ url, token }) against an in-process server on loopback, both protocol versions.
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import type { AcpServer } from '../src/index.js';
import { chunksPrompt, startE2EServer, TOKEN, wsUrl } from '../../../test/support/remote.js';

let server: AcpServer | undefined;
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await server?.close(1000);
  server = undefined;
});

describe.each([
  ['websocket', (s: AcpServer) => wsUrl(s)],
  ['http', (s: AcpServer) => s.url],
] as const)('%s profile', (_name, urlOf) => {
  it.each([1, 2] as const)('v%i: a turn streams every chunk in order, as over stdio', async (v) => {
    server = await startE2EServer();
    const conn = await connect({ url: urlOf(server), token: TOKEN, protocol: v === 2 ? 'auto' : 1 });
    open.push(conn);
    expect(conn.protocolVersion).toBe(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(chunksPrompt(500));
    expect(r.stopReason).toBe('end_turn');
    const text = s.state.messageList
      .filter((m) => m.role === 'agent')
      .map((m) => m.text)
      .join('');
    expect(text).toBe(Array.from({ length: 500 }, (_, i) => `c${i} `).join(''));
    // a second request after the turn: its answer arrives after everything before it
    expect((await s.prompt('hi')).stopReason).toBe('end_turn');
    expect(s.state.messageList.at(-1)!.text).toBe('echo: hi');
  });
});

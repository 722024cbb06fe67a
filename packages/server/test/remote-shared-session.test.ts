// Several clients on one v2 session through `acp-kit serve` (startAcpServer + inProcessAgent) over
// real WebSockets and Streamable HTTP on loopback: a second client of the same token resumes the
// session the first is using and both follow one turn, one prompt queue and one permission question.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientConnection, PermissionPolicy } from '../../client/src/index.js';
import { inProcessAgent, startAcpServer, type AcpServer } from '../src/index.js';
import { connectTapped, OTHER_TOKEN, TOKEN, wsUrl, type TappedClient } from '../../../test/support/remote.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

let server: AcpServer | undefined;
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
  await server?.close(1000);
  server = undefined;
});

type Client = TappedClient;

async function client(url: string, token: string, permissionPolicy?: PermissionPolicy): Promise<Client> {
  const c = await connectTapped(url, token, permissionPolicy);
  open.push(c.conn);
  return c;
}

const chunkTexts = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);

describe.each([
  ['WebSocket', (s: AcpServer) => wsUrl(s)],
  ['Streamable HTTP', (s: AcpServer) => s.url],
] as const)('several clients on one v2 session over %s (acp-kit serve)', (_name, urlOf) => {
  it('the second client gets the history, then the same live updates in the same order; prompts and a permission question are shared', async () => {
    const control = controlledAgent();
    // one session per token: attaching to it opens none
    server = await startAcpServer({
      tokens: [TOKEN, OTHER_TOKEN],
      agent: inProcessAgent(control.definition),
      maxSessions: 1,
    });
    const url = urlOf(server);
    const a = await client(
      url,
      TOKEN,
      (_req, ctx) =>
        new Promise((resolve) => ctx.signal?.addEventListener('abort', () => resolve({ outcome: 'cancelled' }))),
    );
    const sa = await a.conn.newSession({ cwd: '/tmp' });
    await sa.prompt('say:hello');
    const turn = sa.prompt('gate:g:2');
    await control.reached('g');

    const b = await client(url, TOKEN, async (req) => ({ outcome: 'selected', optionId: req.options[0].optionId }));
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    const snapshot = b.updates.findIndex((u) => u.sessionUpdate === 'state_update');
    expect(b.updates[snapshot]).toEqual({ sessionUpdate: 'state_update', state: 'running' });
    expect(chunkTexts(b.updates.slice(0, snapshot))).toEqual(['hello ', 'before0 ', 'before1 ']);

    // B's prompt waits for A's turn; B's permission answer wins over A, which never answers
    const fromB = sb.prompt('ask');
    await b.conn.listAllSessions(); // B's prompt is held before the gate opens
    control.open('g');
    expect((await turn).stopReason).toBe('end_turn');
    expect((await fromB).stopReason).toBe('end_turn');
    // a round trip on each: everything sent to it before has arrived
    await Promise.all([a.conn.listAllSessions(), b.conn.listAllSessions()]);

    const live = b.updates.slice(snapshot + 1);
    expect(a.updates.slice(a.updates.length - live.length)).toEqual(live);
    expect(chunkTexts(live)).toEqual(['after0 ', 'after1 ', 'outcome=allow ']);
    expect(live.filter((u) => u.sessionUpdate === 'user_message').map((u) => u.content[0].text)).toEqual(['ask']);
    const permA = a.received.find((m) => m.method === 'session/request_permission');
    expect(a.received.find((m) => m.method === '$/cancel_request')?.params).toEqual({ requestId: permA.id });

    // another token can neither join nor see it
    const other = await client(url, OTHER_TOKEN);
    // answered as a session that does not exist (the agent's own answer for one)
    await expect(other.conn.resumeSession(sa.sessionId, { cwd: '/tmp' })).rejects.toMatchObject({
      message: expect.stringMatching(/^Session not found/),
    });
  });
});

// WebSocket only: over Streamable HTTP, server.close() with a client still connected did not
// return in this test setup, with or without shared sessions (reported, not investigated here).
describe('several clients on one v2 session, server shutdown', () => {
  it('a graceful server shutdown mid-turn ends the shared turn `cancelled` for both clients', async () => {
    const control = controlledAgent();
    server = await startAcpServer({ tokens: [TOKEN], agent: inProcessAgent(control.definition) });
    const url = wsUrl(server);
    const a = await client(url, TOKEN);
    const sa = await a.conn.newSession({ cwd: '/tmp' });
    const b = await client(url, TOKEN);
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
    const idleA = sa.nextIdle();
    const idleB = sb.nextIdle();
    void sa.prompt('gate:g:1').catch(() => undefined);
    await control.reached('g');
    await server.close(3000);
    server = undefined;
    expect((await idleA).stopReason).toBe('cancelled');
    expect((await idleB).stopReason).toBe('cancelled');
  });
});

// A server shutting down (SIGTERM of `acp-kit serve`: AcpServer.close) while a client's turn runs:
// the turn ends `cancelled` and the client gets that end before its connection closes, also a v2
// turn whose prompt was answered at insertion (docs/remote.md, "SIGTERM / SIGINT"). In process:
// startAcpServer on loopback, real WebSockets, the shared-session test agent.
import { afterEach, expect, it } from 'vitest';
import { inProcessAgent, startAcpServer } from '../src/index.js';
import { connectInProcess } from '../../../test/support/in-process.js';
import { connectTapped, TOKEN, wsUrl } from '../../../test/support/remote.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
});

/** A server with the test agent, a client of version `v` on it, and one session. */
async function setup(v: 1 | 2) {
  const control = controlledAgent();
  const server = await startAcpServer({ tokens: [TOKEN], agent: inProcessAgent(control.definition) });
  cleanups.push(() => server.close(0));
  const c = await connectTapped(wsUrl(server), TOKEN, undefined, v);
  cleanups.push(() => c.conn.close());
  const s = await c.conn.newSession({ cwd: '/tmp' });
  return { control, server, c, s };
}

it.each([1, 2] as const)(
  'v%i: a turn running when the server shuts down ends cancelled, and the client is told before the connection closes',
  async (v) => {
    const { control, server, c, s } = await setup(v);
    // an agent that takes 50 ms to stop: the shutdown must wait for the turn's end, not just for open requests
    const turn = s.prompt('gate:g:1:50');
    await control.reached('g');
    const closed = c.conn.closed.then(() => c.updates.length);
    await server.close(2000);
    // the prompt ends (it does not reject with the connection's end)
    expect((await turn).stopReason).toBe('cancelled');
    // v2: the idle `cancelled` came over the wire, before the connection closed
    const before = await closed;
    if (v === 2)
      expect(
        c.updates
          .slice(0, before)
          .filter((u) => u.sessionUpdate === 'state_update')
          .map((u) => `${u.state}:${u.stopReason ?? ''}`),
      ).toEqual(['running:', 'idle:cancelled']);
  },
);

it.each([1, 2] as const)(
  'v%i: a prompt sent while the server shuts down is not started (v1 cancelled, v2 -32800)',
  async (v) => {
    const { control, server, c: _c, s } = await setup(v);
    // the running turn takes 300 ms to stop: the shutdown is under way when the next prompt arrives
    const first = s.prompt('gate:g:1:300');
    await control.reached('g');
    const closing = server.close(5000);
    const second = s.prompt('gate:h:1');
    // as a prompt held when the turns were cancelled: v1 answers `cancelled`, v2 -32800
    if (v === 1) expect(await second).toMatchObject({ stopReason: 'cancelled' });
    else
      await expect(second).rejects.toMatchObject({
        code: -32800,
        message: expect.stringMatching(/cancelled by the agent shutting down \(it was not started\)/),
      });
    expect((await first).stopReason).toBe('cancelled');
    await closing;
  },
);

it('two drains at once (the end of input during a shutdown) both wait for the same end, neither times out', async () => {
  const control = controlledAgent();
  const pair = await connectInProcess(control.definition, { version: 1 });
  cleanups.push(() => pair.close());
  const s = await pair.conn.newSession({ cwd: '/tmp' });
  // a v1 prompt is an open request until its turn ends; the turn takes 100 ms to stop
  const turn = s.prompt('gate:g:1:100');
  await control.reached('g');
  const [first, second] = await Promise.all([pair.agent.drain(3000), pair.agent.drain(3000)]);
  expect([first, second]).toEqual([true, true]);
  expect((await turn).stopReason).toBe('cancelled');
});

// A client whose connection dropped resumes its session on a new connection while the server is
// still tearing the old one down (its turn ending `cancelled`, the rest of the turn being written
// to the store). The resume waits for that teardown: it then sees the whole history, including
// what the old turn wrote while it ended, and one runtime of the session writes to the store, not
// two. Before, the resume opened a second runtime on a half-written history.
import { afterEach, expect, it } from 'vitest';
import { connect, type ClientConnection, type SessionState } from '../../client/src/index.js';
import { InMemorySessionStore } from '../../agent/src/session-store.js';
import { AcpError } from '../../protocol/src/index.js';
import { inProcessAgent, type AcpServer } from '../src/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../../../test/fixtures/e2e-agent-definition.mjs';
import { startCutProxy, type CutProxy } from '../../../test/support/cut-proxy.js';
import { startE2EServer, TOKEN } from '../../../test/support/remote.js';

const servers: AcpServer[] = [];
let proxy: CutProxy | undefined;
const clients: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await proxy?.close();
  proxy = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close(1000)));
});

const texts = (state: SessionState): string[] => state.messageList.map((m) => `${m.role}: ${m.text}`);

/** Resolves once `check` holds, looking every few ms (the server's teardown has no event of its own). */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

it.each([
  ['websocket', (u: string) => u.replace(/^http/, 'ws')],
  ['streamable http', (u: string) => u],
] as const)(
  "%s: a resume racing the dropped connection's teardown waits for it and sees the whole history",
  async (_name, urlOf) => {
    const store = new InMemorySessionStore();
    const server = await startE2EServer({
      agent: inProcessAgent(
        () =>
          createE2EAgent({
            AcpError,
            peer: () => {
              throw new Error('no raw peer');
            },
            log: () => undefined,
            env: {},
          }),
        { storeFor: () => store, cancelTimeoutMs: 5000 },
      ),
      // a dropped HTTP event stream waits this long for its client to resume it (Last-Event-ID)
      streamResumeMs: 300,
    });
    servers.push(server);
    proxy = await startCutProxy(server.port);

    const first = await connect({ url: urlOf(proxy.url), token: TOKEN });
    clients.push(first);
    const s = await first.newSession({ cwd: '/tmp' });
    let started!: () => void;
    const chunk = new Promise<void>((r) => (started = r));
    s.onUpdate(() => {
      if (s.state.message('agent', 'a')) started();
    });
    // the turn takes a while to end once cancelled, and writes its last words while it does
    const script = {
      actions: [
        { send: { sessionUpdate: 'agent_message_chunk', messageId: 'a', content: { type: 'text', text: 'working' } } },
        { sleepIgnoringCancel: 1500 },
        {
          send: { sessionUpdate: 'agent_message_chunk', messageId: 'b', content: { type: 'text', text: 'last words' } },
        },
      ],
    };
    void s.prompt(JSON.stringify(script)).catch(() => undefined);
    await chunk;

    // the network drops and stays down for this path (an HTTP client's resume of its event stream
    // does not get through); the server notices and starts closing the connection (and its session)
    proxy.hold();
    proxy.cut();
    await until('the server to drop the connection', () => server.connectionCount === 0);

    // the client is back at once, on a new connection, while the old turn is still ending
    const second = await connect({ url: urlOf(server.url), token: TOKEN });
    clients.push(second);
    const resumed = await second.resumeSession(s.sessionId, { cwd: '/tmp', replay: true });
    expect(resumed.state.foreground.state).toBe('idle');
    expect(texts(resumed.state)).toContain('agent: last words');

    // one writer: a fresh resume of what the store holds shows the same transcript
    const third = await connect({ url: urlOf(server.url), token: TOKEN });
    clients.push(third);
    await resumed.close();
    const again = await third.resumeSession(s.sessionId, { cwd: '/tmp', replay: true });
    expect(texts(again.state)).toEqual(texts(resumed.state));
  },
  30_000,
);

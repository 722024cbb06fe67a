// `acp-kit chat --agent-url` across a dropped connection, the controller part: the chat controller
// (src/cli/ui/chat-controller.ts) on a reconnecting client over a real WebSocket to an in-process
// `acp-kit serve` (startAcpServer), through a relay that loses the client's side of the connection.
// The session's state is replaced by the resume; the feed must go on from it with nothing the user
// saw shown twice, nothing lost, and one line saying it reconnected.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../packages/agent/src/index.js';
import { connectReconnecting, type ReconnectingConnection } from '../packages/client/src/index.js';
import { ChatController, chatSessionOf } from '../src/cli/ui/chat-controller.js';
import { ExitCode } from '../src/cli/exit-codes.js';
import type { FeedItem } from '../src/cli/ui/chat-model.js';
import { inProcessAgent, startAcpServer, type AcpServer } from '../packages/server/src/index.js';
import { startCutProxy, type CutProxy } from './support/cut-proxy.js';

const TOKEN = 'chat-reconnect-token';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Points in the `long` turn, shared by every connection's agent (the test moves the turn along). */
interface Gates {
  /** released by the test once the client lost its connection */
  away: Deferred;
  /** resolved by the agent once it sent what the client missed */
  sentWhileAway: Deferred;
  /** released by the test once the client is back */
  back: Deferred;
}

/** `long`: a message, (away) more of it and a tool call, (back) a second message; anything else is echoed. */
function chatAgent(g: Gates): AgentDefinition {
  return {
    info: { name: 'chat-reconnect', version: '0' },
    async prompt(turn) {
      const text = turn.prompt.map((b) => (b.type === 'text' ? (b as { text: string }).text : '')).join('');
      const say = (messageId: string, t: string) =>
        turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: t } });
      if (text !== 'long') {
        await say(turn.session.newId('echo'), `echo: ${text}`);
        return 'end_turn';
      }
      await say('m1', 'part one,');
      await g.away.promise;
      await say('m1', ' part two');
      await turn.send({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't1',
        title: 'Read notes',
        kind: 'read',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'notes' } }],
      });
      g.sentWhileAway.resolve();
      await g.back.promise;
      await say('m2', 'after the tool');
      return 'end_turn';
    },
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(version: 1 | 2, attempts = 5) {
  const g: Gates = { away: deferred(), sentWhileAway: deferred(), back: deferred() };
  const server: AcpServer = await startAcpServer({ tokens: [TOKEN], agent: inProcessAgent(() => chatAgent(g)) });
  cleanups.push(() => server.close(1000));
  const relay: CutProxy = await startCutProxy(server.port);
  cleanups.push(() => relay.close());
  const url = relay.url.replace(/^http/, 'ws');
  let c!: ChatController;
  const rc: ReconnectingConnection = await connectReconnecting({
    url,
    token: TOKEN,
    protocol: version,
    reconnect: { attempts, baseDelayMs: 10, maxDelayMs: 100 },
  });
  cleanups.push(async () => {
    c.exit();
    await rc.close();
  });
  expect(rc.connection.protocolVersion).toBe(version);
  c = new ChatController(
    { agentLabel: 'test', protocolVersion: version, cwd: '/tmp' },
    { commandLine: url, command: url },
  );
  // as `chat` wires it: the status line follows the reconnect; the reconnect line comes with `reconnected`
  c.followReconnects(rc, 'acp-kit chat --resume <id>');
  const reconnects: number[] = [];
  rc.on('reconnected', ({ attempt }) => {
    reconnects.push(attempt);
    c.reconnected(`the connection to ${url} dropped; reconnected (attempt ${attempt}) and resumed the session`);
  });
  const session = chatSessionOf(await rc.newSession({ cwd: '/tmp', onUpdate: c.opening }));
  c.attach(session);
  /** Resolves once `pred` holds for the view (checked on every view change). */
  const until = (pred: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (pred()) return resolve();
      const timer = setTimeout(
        () => (
          off(),
          reject(new Error(`timed out waiting for ${what}; feed: ${describeFeed(c.view.feed).join(' | ')}`))
        ),
        10_000,
      );
      const off = c.subscribe(() => {
        if (pred()) {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    });
  return { c, rc, g, server, relay, session, until, reconnects };
}

/** The feed as short strings: notes as `kind:text`, messages as `role:text`, tool calls as `tool:title:status`. */
function describeFeed(feed: FeedItem[]): string[] {
  return feed.map((i) => {
    if ('note' in i) return `${i.note.kind}:${i.note.text.replace(/ws:\/\/127\.0\.0\.1:\d+\/acp/, '<url>')}`;
    const e = i.entry;
    if (e.kind === 'message') return `${e.role}:${e.text}`;
    if (e.kind === 'tool_call') return `tool:${e.title}:${e.status}`;
    return e.kind;
  });
}

const RECONNECTED = 'info:the connection to <url> dropped; reconnected (attempt 1) and resumed the session';

describe('chat controller on a reconnecting connection (WebSocket, client side of the connection lost)', () => {
  it('v2, dropped mid-turn: the answer goes on in place, what happened meanwhile is added once, then the rest of the turn', async () => {
    const { c, g, relay, session, until, reconnects } = await start(2);
    c.send('long');
    await until(() => describeFeed(c.view.feed).includes('agent:part one,'), 'the first part of the answer');
    const held = c.view.state;
    // the network goes down; the server keeps the turn running and sends the rest while the client is away
    relay.hold();
    relay.severClients();
    await until(() => c.view.connection !== undefined, 'the status line to show the drop');
    expect(c.view.connection).toMatch(/^connection lost · reconnecting/);
    g.away.resolve();
    await g.sentWhileAway.promise;
    // the network is back: the client reconnects and resumes; the turn goes on after that
    relay.release();
    await until(() => reconnects.length === 1, 'the reconnect');
    expect(c.view.connection).toBeUndefined();
    // the feed reads the resumed state now (the held one no longer changes)
    expect(c.view.state).toBe(session.state);
    expect(c.view.state).not.toBe(held);
    expect(describeFeed(c.view.feed)).toEqual([
      'prompt:long',
      'agent:part one, part two',
      'tool:Read notes:completed',
      RECONNECTED,
    ]);
    expect(c.view.running).toBe(true);
    g.back.resolve();
    await until(() => !c.view.running, 'the turn to end');
    expect(describeFeed(c.view.feed)).toEqual([
      'prompt:long',
      'agent:part one, part two',
      'tool:Read notes:completed',
      RECONNECTED,
      'agent:after the tool',
      'stop:end_turn (the agent finished)',
    ]);
    expect(c.view.committed).toBe(c.view.feed.length);
    // the chat goes on on the new connection
    c.send('more');
    await until(() => !c.view.running && c.view.feed.length === 9, 'the next turn to end');
    expect(describeFeed(c.view.feed).slice(6)).toEqual([
      'prompt:more',
      'agent:echo: more',
      'stop:end_turn (the agent finished)',
    ]);
    expect(reconnects).toEqual([1]);
  });

  it.each([1, 2] as const)(
    'v%i, dropped between turns: the history is not shown again and the next turn shows',
    async (v) => {
      const { c, relay, until, reconnects } = await start(v);
      c.send('one');
      await until(() => !c.view.running, 'the first turn to end');
      relay.severClients();
      await until(() => reconnects.length === 1, 'the reconnect');
      c.send('two');
      await until(
        () => !c.view.running && c.view.feed.filter((i) => 'note' in i && i.note.kind === 'stop').length === 2,
        'the second turn to end',
      );
      expect(describeFeed(c.view.feed)).toEqual([
        'prompt:one',
        'agent:echo: one',
        'stop:end_turn (the agent finished)',
        RECONNECTED,
        'prompt:two',
        'agent:echo: two',
        'stop:end_turn (the agent finished)',
      ]);
    },
  );

  it('v2, a prompt typed while the connection is down is sent once the session is resumed', async () => {
    const { c, relay, until, reconnects } = await start(2);
    c.send('one');
    await until(() => !c.view.running, 'the first turn to end');
    relay.hold();
    relay.severClients();
    await until(() => c.view.connection !== undefined, 'the status line to show the drop');
    c.send('two');
    expect(c.view.running).toBe(true);
    relay.release();
    await until(() => !c.view.running, 'the second turn to end');
    expect(reconnects).toEqual([1]);
    expect(describeFeed(c.view.feed)).toEqual([
      'prompt:one',
      'agent:echo: one',
      'stop:end_turn (the agent finished)',
      'prompt:two',
      RECONNECTED,
      'agent:echo: two',
      'stop:end_turn (the agent finished)',
    ]);
  });

  it('a server that does not come back: after the last attempt the chat ends with a clear error', async () => {
    const { c, server, relay, until } = await start(2, 2);
    c.send('one');
    await until(() => !c.view.running, 'the first turn to end');
    await server.close(1000);
    relay.severClients();
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      c.whenExited(),
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error('the chat did not end within 10 s of the last failed attempt')),
            10_000,
          )),
      ),
    ]).finally(() => clearTimeout(timer));
    expect(exit.code).toBe(ExitCode.AgentFailed);
    expect(exit.error?.kind).toBe('agent_unreachable');
    // the command line that comes back to the session, as docs/remote.md promises
    expect(exit.error?.hint).toBe('Once the server is reachable, resume this chat with: acp-kit chat --resume <id>');
    expect(exit.error?.message).toMatch(
      /^lost the connection to ws:\/\/127\.0\.0\.1:\d+\/acp and could not reconnect in 2 attempts \(last error: .+\): check that the server is running and reachable, then connect again$/,
    );
  });
});

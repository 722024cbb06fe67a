// The chat controller (src/cli/ui/chat-controller.ts) against acp-kit's agent runtime in-process
// over in-memory pipes, v1 and v2: updates applied while the session opens reach the view through
// the `onUpdate` the chat passes to newSession/resumeSession (`controller.opening`), and the turn
// token counts of `_meta["acp-kit/usage"]` show in the stop line and the status; the agent's
// unstable `auth/status_update` becomes a note in the feed (`followAuthStatus`, as `acp-kit chat` wires it).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { serveAgent, silentLogger, type AgentDefinition } from '../packages/agent/src/index.js';
import { USAGE_META_KEY } from '../packages/coding-agent/src/coding-agent.js';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import type { AuthStatus } from '../packages/protocol/src/index.js';
import { StreamTransport } from '../packages/protocol/src/rpc/index.js';
import { ChatController } from '../src/cli/ui/chat-controller.js';
import type { FeedItem } from '../src/cli/ui/chat-model.js';

const usageMeta = (inputTokens: number, outputTokens: number) => ({
  [USAGE_META_KEY]: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
});

/** Sends a notice and a turn-usage info update with the `session/new` answer; turns report usage. */
const agent: AgentDefinition = {
  info: { name: 'chat-open-test', version: '0' },
  openSession(session) {
    session.send({
      sessionUpdate: 'notice',
      severity: 'warning',
      title: 'model fallback',
      description: 'using the small model',
    });
    session.send({ sessionUpdate: 'session_info_update', _meta: usageMeta(7, 3) });
    return { availableCommands: [{ name: 'help', description: 'Help' }] };
  },
  async prompt(turn) {
    await turn.send({
      sessionUpdate: 'agent_message_chunk',
      messageId: turn.session.newId('m'),
      content: { type: 'text', text: 'hi' },
    });
    await turn.send({ sessionUpdate: 'session_info_update', _meta: usageMeta(1234, 56) });
    return 'end_turn';
  },
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(version: 1 | 2, passOpening: boolean, def: AgentDefinition = agent) {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  const agentConn = serveAgent(def, new StreamTransport(toAgent, toClient), {
    supportedVersions: [version],
    store: null,
    logger: silentLogger,
  });
  const conn: ClientConnection = await connect({
    transport: new StreamTransport(toClient, toAgent),
    protocol: version === 2 ? 'auto' : 1,
  });
  const c = new ChatController(
    { agentLabel: 'test', protocolVersion: version, cwd: '/tmp', model: 'openai:m' },
    { commandLine: 'test', command: 'test' },
  );
  cleanups.push(async () => {
    c.exit();
    await conn.close();
    agentConn.close();
  });
  const session = await conn.newSession({ cwd: '/tmp', ...(passOpening ? { onUpdate: c.opening } : {}) });
  c.attach(session);
  return { c, conn };
}

const notes = (feed: FeedItem[]) => feed.flatMap((i) => ('note' in i ? [`${i.note.kind}:${i.note.text}`] : []));

describe.each([1, 2] as const)('chat controller over v%i: updates while the session opens', (v) => {
  it('what the agent sent with the session/new answer reaches the view (notice in the feed, turn tokens in the status)', async () => {
    const { c } = await start(v, true);
    expect(c.view.model).toBe('openai:m');
    expect(c.view.turnTokens).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    // (v1: our client advertises the notices capability, ACP-V1-NOTICE-01)
    expect(notes(c.view.feed)).toEqual(['info:warning: model fallback — using the small model']);
    // shown as final (committed) items, before anything of the first turn
    expect(c.view.committed).toBe(c.view.feed.length);
  });

  it('the turn tokens from _meta["acp-kit/usage"] end the stop line and replace the status tokens', async () => {
    const { c } = await start(v, true);
    const done = new Promise<void>((resolve) => {
      const off = c.subscribe(() => {
        if (!c.view.running && notes(c.view.feed).some((n) => n.startsWith('stop:'))) {
          off();
          resolve();
        }
      });
    });
    c.send('go');
    await done;
    expect(notes(c.view.feed).at(-1)).toBe('stop:end_turn (the agent finished) · 1290 tokens (1234 in, 56 out)');
    expect(c.view.turnTokens).toEqual({ inputTokens: 1234, outputTokens: 56, totalTokens: 1290 });
  });
});

it('without the opening onUpdate those updates are not observed (what `acp-kit chat` did before)', async () => {
  const { c } = await start(2, false);
  expect(c.view.turnTokens).toBeUndefined();
  expect(notes(c.view.feed)).toEqual([]);
});

/** The agent's notification the chat shows as a note. */
const AUTH_UPDATE = 'auth/status_update';

describe.each([1, 2] as const)(`chat controller over v%i: ${AUTH_UPDATE}`, (v) => {
  it('an auth state change the agent pushes mid-turn is a note in the feed, before the stop line', async () => {
    let push: ((s: AuthStatus) => void) | undefined;
    const authAgent: AgentDefinition = {
      info: { name: 'chat-auth-test', version: '0' },
      auth: {
        status: () => ({ state: 'not_required' }),
        watch: (p) => ((push = p), () => undefined),
      },
      async prompt(turn) {
        push?.({ state: 'authenticated', accounts: [{ label: 'Team key', active: true }, { label: 'Old key' }] });
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId: 'm',
          content: { type: 'text', text: 'ok' },
        });
        return 'end_turn';
      },
    };
    const { c, conn } = await start(v, true, authAgent);
    c.followAuthStatus(conn);
    const done = new Promise<void>((resolve) => {
      const off = c.subscribe(() => {
        if (!c.view.running && notes(c.view.feed).some((n) => n.startsWith('stop:'))) {
          off();
          resolve();
        }
      });
    });
    c.send('go');
    await done;
    const got = notes(c.view.feed);
    expect(got.filter((n) => n.includes('auth:'))).toEqual(['info:auth: authenticated (Team key)']);
    expect(got.indexOf('info:auth: authenticated (Team key)')).toBeLessThan(
      got.findIndex((n) => n.startsWith('stop:')),
    );
  });
});

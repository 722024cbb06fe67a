// The chat controller (src/cli/ui/chat-controller.ts) against acp-kit's agent runtime in-process
// over in-memory pipes, v1 and v2: queued prompts, Esc rejecting in the permission picker, Ctrl-C
// clearing the input, the cancelling line replaced by the outcome, Ctrl-O's full output.
// v2 /cancel-tool: the latest cancellable call, unknown ids and the agent refusing (tool_call/cancel).
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { serveAgent, silentLogger, type AgentDefinition } from '../packages/agent/src/index.js';
import { connect, interactive, type ClientConnection } from '../packages/client/src/index.js';
import { StreamTransport } from '../packages/protocol/src/rpc/index.js';
import { ChatController } from '../src/cli/ui/chat-controller.js';
import type { FeedItem } from '../src/cli/ui/chat-model.js';

const LONG_OUTPUT = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');

/** An agent whose turns do what the prompt says: `wait` holds until released or cancelled. */
function testAgent(gates: Array<() => void>): AgentDefinition {
  return {
    info: { name: 'chat-test', version: '0' },
    async prompt(turn) {
      const text = turn.prompt.map((b) => (b.type === 'text' ? (b as { text: string }).text : '')).join('');
      const say = (t: string) =>
        turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId: turn.session.newId('m'),
          content: { type: 'text', text: t },
        });
      if (text === 'wait') {
        await say('waiting'); // the client sees the turn has started
        await new Promise<void>((r) => {
          gates.push(r);
          turn.signal.addEventListener('abort', () => r(), { once: true });
        });
        if (turn.signal.aborted) return 'cancelled';
      } else if (text === 'perm') {
        const outcome = await turn.requestPermission({
          title: 'Write x?',
          options: [
            { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
            { optionId: 'never', name: 'Always reject', kind: 'reject_always' },
            { optionId: 'no', name: 'Reject', kind: 'reject_once' },
          ],
        });
        await say(`answer: ${outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome}`);
        return 'end_turn';
      } else if (text === 'two calls') {
        // v2: both calls advertise cancel, the agent honours it for the second only (the first
        // answers -32602 as a call that is no longer cancellable would)
        const ids = [turn.session.newId('tool'), turn.session.newId('tool')] as const;
        for (const [i, toolCallId] of ids.entries())
          await turn.send({
            sessionUpdate: 'tool_call_update',
            toolCallId,
            title: i === 0 ? 'First' : 'Second',
            kind: 'execute',
            status: 'in_progress',
            capabilities: { cancel: {} },
          });
        await new Promise<void>((r) => turn.session.onCancelToolCall?.(ids[1], () => r()));
        for (const [i, toolCallId] of ids.entries())
          await turn.send({
            sessionUpdate: 'tool_call_update',
            toolCallId,
            status: i === 0 ? 'completed' : 'cancelled',
          });
        await say('second cancelled');
        return 'end_turn';
      } else if (text === 'out') {
        const toolCallId = turn.session.newId('tool');
        await turn.send({
          sessionUpdate: 'tool_call_update',
          toolCallId,
          title: 'Print lines',
          kind: 'execute',
          status: 'completed',
          content: [{ type: 'content', content: { type: 'text', text: LONG_OUTPUT } }],
        });
      }
      await say(`echo: ${text}`);
      return 'end_turn';
    },
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(version: 1 | 2) {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  const gates: Array<() => void> = [];
  /** `session/prompt` requests in the order the agent received them */
  const prompts: string[] = [];
  const agentConn = serveAgent(testAgent(gates), new StreamTransport(toAgent, toClient), {
    supportedVersions: [version],
    store: null,
    logger: silentLogger,
    peer: {
      tap: {
        received: (m) => {
          const msg = m as { method?: string; params?: { prompt?: Array<{ text?: string }> } };
          if (msg.method === 'session/prompt') prompts.push(msg.params?.prompt?.[0]?.text ?? '');
        },
      },
    },
  });
  let c!: ChatController;
  const conn: ClientConnection = await connect({
    transport: new StreamTransport(toClient, toAgent),
    protocol: version === 2 ? 'auto' : 1,
    permissionPolicy: interactive((req, ctx) => c.ask(req, ctx)),
  });
  cleanups.push(async () => {
    c.exit();
    await conn.close();
    agentConn.close();
  });
  expect(conn.protocolVersion).toBe(version);
  c = new ChatController(
    { agentLabel: 'test', protocolVersion: version, cwd: '/tmp' },
    { commandLine: 'test', command: 'test' },
  );
  const session = await conn.newSession({ cwd: '/tmp' });
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
        5000,
      );
      const off = c.subscribe(() => {
        if (pred()) {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    });
  return { c, conn, gates, prompts, until };
}

/** The feed as short strings: notes as `kind:text`, messages as `role:text`. */
function describeFeed(feed: FeedItem[]): string[] {
  return feed.map((i) => {
    if ('note' in i) return `${i.note.kind}:${i.note.text}`;
    const e = i.entry;
    return e.kind === 'message' ? `${e.role}:${e.text}` : e.kind;
  });
}

describe.each([1, 2] as const)('chat controller over v%i', (v) => {
  it('Enter during a running turn queues the prompt; it runs after the turn, in order', async () => {
    const { c, conn, gates, prompts, until } = await start(v);
    c.send('wait');
    await until(() => gates.length === 1, 'the first turn to start');
    c.send('second');
    c.send('third');
    expect(c.view.queued).toEqual(['second', 'third']);
    expect(describeFeed(c.view.feed).filter((l) => l.startsWith('prompt:'))).toEqual(['prompt:wait']);
    // round trip after the sends: whatever the controller sent for them arrived before its answer
    await conn.call('_chat_test/ping', {}).catch(() => undefined);
    // both versions keep queued prompts in the client until the turn ends (no steering in 2.4.0)
    expect(prompts).toEqual(['wait']);
    gates[0]!();
    await until(
      () =>
        !c.view.running &&
        c.view.queued.length === 0 &&
        c.view.feed.filter((i) => 'note' in i && i.note.kind === 'stop').length === 3,
      'all three turns to end',
    );
    expect(prompts).toEqual(['wait', 'second', 'third']);
    expect(describeFeed(c.view.feed)).toEqual([
      'prompt:wait',
      'agent:waiting',
      'agent:echo: wait',
      'stop:end_turn (the agent finished)',
      'prompt:second',
      'agent:echo: second',
      'stop:end_turn (the agent finished)',
      'prompt:third',
      'agent:echo: third',
      'stop:end_turn (the agent finished)',
    ]);
  });

  it('Esc (unqueue) takes the latest queued prompt back: it is never sent, the others run in order', async () => {
    const { c, conn, gates, prompts, until } = await start(v);
    c.send('wait');
    await until(() => gates.length === 1, 'the first turn to start');
    c.send('second');
    c.send('third');
    c.unqueue();
    expect(c.view.queued).toEqual(['second']);
    expect(describeFeed(c.view.feed)).toContain('info:removed queued message: third');
    gates[0]!();
    await until(
      () => !c.view.running && c.view.feed.filter((i) => 'note' in i && i.note.kind === 'stop').length === 2,
      'both turns to end',
    );
    // a round trip after the last turn: a prompt for "third" would have arrived before its answer
    await conn.call('_chat_test/ping', {}).catch(() => undefined);
    expect(prompts).toEqual(['wait', 'second']);
  });

  it('Ctrl-C cancels the turn, drops queued prompts and clears the input; the outcome replaces "cancelling…"', async () => {
    const { c, gates, until } = await start(v);
    c.send('wait');
    await until(() => gates.length === 1, 'the turn to start');
    c.send('later');
    c.setDraft('half-typed');
    c.interrupt();
    expect(c.view.draft).toBe('');
    expect(c.view.cancelling).toBe(true);
    expect(c.view.queued).toEqual([]);
    await until(() => !c.view.running, 'the turn to end');
    const feed = describeFeed(c.view.feed);
    expect(feed).toEqual(['prompt:wait', 'agent:waiting', 'info:dropped queued prompt: later', 'stop:cancelled']);
    expect(feed.join('\n')).not.toMatch(/cancelling/);
    expect(c.view.cancelling).toBe(false);
    // idle: Ctrl-C with typed text clears it too (and arms exit)
    c.setDraft('more');
    c.interrupt();
    expect(c.view.draft).toBe('');
    expect(c.view.exitArmed).toBe(true);
  });

  it('Esc in the permission picker answers with the reject_once option', async () => {
    const { c, until } = await start(v);
    c.send('perm');
    await until(() => c.view.permission !== undefined, 'the permission request');
    c.rejectPermission();
    await until(() => !c.view.running, 'the turn to end');
    expect(describeFeed(c.view.feed)).toContain('agent:answer: no');
  });

  it('Ctrl-O adds the whole output of the latest tool call to the feed', async () => {
    const { c, until } = await start(v);
    c.send('out');
    await until(() => !c.view.running, 'the turn to end');
    c.expandOutput();
    const last = c.view.feed.at(-1)!;
    expect('note' in last && last.note).toEqual({ kind: 'output', title: 'Print lines', text: LONG_OUTPUT });
    expect(c.view.committed).toBe(c.view.feed.length);
  });
});

describe('chat controller over v2: /cancel-tool (tool_call/cancel)', () => {
  it('no id cancels the latest cancellable call; an unknown id is never sent; the agent refusing is an error note; nothing is queued', async () => {
    const { c, prompts, until } = await start(2);
    const lastNote = () => {
      const n = c.view.feed.at(-1);
      return n && 'note' in n ? `${n.note.kind}:${n.note.text}` : '';
    };
    c.send('two calls');
    const calls = () => [...(c.view.state?.toolCalls.values() ?? [])].filter((t) => t.capabilities?.cancel != null);
    await until(() => calls().length === 2, 'two cancellable calls');
    const [first, second] = calls().map((t) => t.toolCallId);
    c.send('/cancel-tool nope');
    await until(() => lastNote().includes('"nope" is not one of them'), 'the unknown id');
    expect(lastNote()).toBe(
      `error:/cancel-tool: "nope" is not one of them; can cancel: ${first} (First), ${second} (Second)`,
    );
    c.send(`/cancel-tool ${first}`);
    await until(() => lastNote().startsWith(`error:/cancel-tool ${first}:`), "the agent's refusal");
    expect(lastNote()).toContain('not a cancellable tool call');
    expect(c.view.running).toBe(true);
    c.send('/cancel-tool');
    await until(() => !c.view.running, 'the turn to end');
    await until(() => describeFeed(c.view.feed).some((f) => f.startsWith('info:cancelled')), 'the cancel note');
    const feed = describeFeed(c.view.feed);
    expect(feed).toContain(`info:cancelled tool call ${second} (Second); the turn goes on`);
    expect(feed).toContain('agent:second cancelled');
    expect(c.view.state?.toolCalls.get(second ?? '')?.status).toBe('cancelled');
    // the commands ran at once: none was queued or sent as a prompt
    expect(prompts).toEqual(['two calls']);
    c.send('/cancel-tool');
    await until(() => lastNote().includes('no running tool call'), 'nothing left to cancel');
  });
});

/**
 * A v1 agent of raw lines whose prompt asks for a permission and waits: `withdraw()` sends
 * `$/cancel_request` for that request, as an agent does when it no longer needs the answer.
 */
function withdrawingAgent(toAgent: PassThrough, toClient: PassThrough) {
  const write = (m: object) => toClient.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const answers: unknown[] = [];
  let prompt: unknown;
  let sessions = 0;
  createInterface({ input: toAgent }).on('line', (line) => {
    const m = JSON.parse(line) as { id?: unknown; method?: string; result?: unknown; error?: unknown };
    if (m.method === 'initialize')
      write({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    else if (m.method === 'session/new') write({ id: m.id, result: { sessionId: `s${++sessions}` } });
    else if (m.method === 'session/prompt') {
      prompt = m.id;
      const options = [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ];
      const toolCall = { toolCallId: 't1', title: 'Write x?' };
      write({ id: 'perm-1', method: 'session/request_permission', params: { sessionId: 's1', toolCall, options } });
    } else if (m.id === 'perm-1' && m.method === undefined) {
      answers.push(m.result ?? m.error);
    }
  });
  return {
    answers,
    withdraw: () => write({ method: '$/cancel_request', params: { requestId: 'perm-1' } }),
    endTurn: () => write({ id: prompt, result: { stopReason: 'end_turn' } }),
  };
}

describe('chat controller: a permission request the agent withdraws', () => {
  it('$/cancel_request from the agent closes the picker, and the request is still answered, cancelled', async () => {
    const toAgent = new PassThrough();
    const toClient = new PassThrough();
    const agent = withdrawingAgent(toAgent, toClient);
    let c!: ChatController;
    const conn = await connect({
      transport: new StreamTransport(toClient, toAgent),
      protocol: 1,
      permissionPolicy: interactive((req, ctx) => c.ask(req, ctx)),
    });
    c = new ChatController(
      { agentLabel: 'test', protocolVersion: 1, cwd: '/tmp' },
      { commandLine: 'test', command: 'test' },
    );
    cleanups.push(async () => {
      c.exit();
      await conn.close();
    });
    c.attach(await conn.newSession({ cwd: '/tmp' }));
    const seen = (pred: () => boolean) =>
      new Promise<void>((resolve) => {
        if (pred()) return resolve();
        const off = c.subscribe(() => pred() && (off(), resolve()));
      });
    c.send('write x');
    await seen(() => c.view.permission !== undefined);
    agent.withdraw();
    // closed by the withdrawal itself: the turn is still running
    await seen(() => c.view.permission === undefined);
    expect(c.view.running).toBe(true);
    // a round trip after the withdrawal: the answer, sent before it, has arrived
    await conn.newSession({ cwd: '/tmp' });
    expect(agent.answers).toEqual([{ outcome: { outcome: 'cancelled' } }]);
    agent.endTurn();
    await seen(() => !c.view.running);
  });
});

/**
 * The agent runtime's elicitation API (issue 26 item 2) against the official SDK 2.4.0 client apps,
 * v1 and v2, in process: `turn.elicit` / `turn.elicitUrl` reach the SDK's `elicitation/create`
 * handler scoped to the session, its answers come back to the author, `elicitation/complete`
 * follows an accepted url, an unadvertised mode is refused without sending anything, and
 * `session/cancel` / `session/close` withdraw a pending elicitation with `$/cancel_request`.
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import * as sdk1 from '@agentclientprotocol/sdk';
import * as sdk2 from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, describe, expect, it } from 'vitest';
import { serveAgent, silentLogger, type AgentConnection } from '../src/index.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';
import { elicitingAgent } from '../../../test/support/eliciting-agent.js';

type Asked = { method: string; params: Record<string, unknown>; aborted?: Promise<void> };

const agents: AgentConnection[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.close();
});

/** Serves the eliciting agent in process; the SDK side gets web streams of the same pipes. */
function serve(): { stream: ReturnType<typeof sdk1.ndJsonStream> } {
  const c2a = new PassThrough();
  const a2c = new PassThrough();
  agents.push(
    serveAgent(elicitingAgent, new StreamTransport(c2a, a2c), { logger: silentLogger, validateOutgoing: true }),
  );
  const output = Writable.toWeb(c2a) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(a2c) as ReadableStream<Uint8Array>;
  return { stream: sdk1.ndJsonStream(output, input) };
}

type Answer = (params: Record<string, unknown>, signal: AbortSignal) => unknown;

/** An SDK client app answering elicitations with `answer`, recording what it was asked and told. */
function handlers(asked: Asked[], answer: Answer) {
  return {
    create: (ctx: { params: unknown; signal: AbortSignal }) => {
      const params = ctx.params as Record<string, unknown>;
      const aborted = new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      asked.push({ method: 'elicitation/create', params, aborted });
      return answer(params, ctx.signal) as never;
    },
    complete: (ctx: { params: unknown }) => {
      asked.push({ method: 'elicitation/complete', params: ctx.params as Record<string, unknown> });
    },
  };
}

const never = (_p: unknown, signal: AbortSignal) =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('withdrawn'))));

async function v1Run(
  caps: Record<string, unknown>,
  answer: Answer,
  drive: (cx: any, s: any, asked: Asked[]) => Promise<unknown>,
) {
  const { stream } = serve();
  const asked: Asked[] = [];
  const h = handlers(asked, answer);
  const app = sdk1
    .client({ name: 'sdk-v1' })
    .onRequest('elicitation/create', h.create)
    .onNotification('elicitation/complete', h.complete);
  const out = await app.connectWith(stream, async (cx) => {
    await cx.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: caps,
      clientInfo: { name: 'sdk-v1', version: '1' },
    });
    const session = await cx.buildSession('/tmp').start();
    return drive(cx, session, asked);
  });
  return { out, asked };
}

async function v2Run(
  caps: Record<string, unknown>,
  answer: Answer,
  drive: (cx: any, s: any, asked: Asked[]) => Promise<unknown>,
) {
  const { stream } = serve();
  const asked: Asked[] = [];
  const h = handlers(asked, answer);
  const app = sdk2
    .client({ name: 'sdk-v2' })
    .onRequest('elicitation/create', h.create)
    .onNotification('elicitation/complete', h.complete);
  const out = await app.connectWith(stream as never, async (cx) => {
    await cx.request('initialize', { protocolVersion: 2, info: { name: 'sdk-v2', version: '1' }, capabilities: caps });
    const session = await cx.buildSession('/tmp').start();
    return drive(cx, session, asked);
  });
  return { out, asked };
}

const BOTH = { elicitation: { form: {}, url: {} } };
const runners = { 1: v1Run, 2: v2Run } as const;
const turnText = (version: 1 | 2) => async (session: any, text: string) => {
  const r = await session.prompt(text);
  const t: string = version === 1 ? await session.readText() : await session.readTextUntilIdle();
  return { r, t };
};

describe.each([1, 2] as const)('agent runtime elicitation, official SDK v%i client', (version) => {
  const run = runners[version];
  const turn = turnText(version);

  it('form: the SDK gets a session-scoped form request; its accept reaches the author (ACP-ALL-ELIC-03, ACP-ALL-ELIC-07)', async () => {
    const { out, asked } = await run(
      BOTH,
      () => ({ action: 'accept', content: { name: 'Ada', age: 36 } }),
      async (_cx, s) => ({
        ...(await turn(s, 'form')),
        sessionId: s.sessionId,
      }),
    );
    const o = out as { t: string; sessionId: string };
    expect(JSON.parse(o.t)).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.params).toMatchObject({ sessionId: o.sessionId, mode: 'form', message: 'Who are you?' });
    expect(asked[0]?.params.requestedSchema).toMatchObject({ type: 'object', required: ['name'] });
  });

  it('url: consent, then elicitation/complete with the same id, only after the accept (ACP-ALL-ELIC-09)', async () => {
    const { out, asked } = await run(
      BOTH,
      () => ({ action: 'accept' }),
      (_cx, s) => turn(s, 'url'),
    );
    const got = JSON.parse((out as { t: string }).t);
    expect(got).toMatchObject({ action: 'accept' });
    expect(asked.map((a) => a.method)).toEqual(['elicitation/create', 'elicitation/complete']);
    expect(asked[0]?.params).toMatchObject({
      mode: 'url',
      url: 'https://auth.example.com/consent?flow=1',
      elicitationId: got.elicitationId,
    });
    expect(asked[1]?.params).toEqual({ elicitationId: got.elicitationId });
  });

  it('an elicitationId is unique among outstanding url elicitations, free again once completed (ACP-ALL-ELIC-09)', async () => {
    const { out, asked } = await run(
      BOTH,
      () => ({ action: 'accept' }),
      (_cx, s) => turn(s, 'url-dup'),
    );
    expect(JSON.parse((out as { t: string }).t)).toEqual({
      second: expect.stringMatching(/elicitationId "dup" is still outstanding/),
      first: 'accept',
      whileAccepted: 'refused',
      afterComplete: 'accept',
    });
    expect(asked.map((a) => a.method)).toEqual(['elicitation/create', 'elicitation/complete', 'elicitation/create']);
  });

  it('a declined url is not completed; an unknown action reads as cancel (ACP-ALL-ELIC-07)', async () => {
    const answers = ['decline', 'open_later'];
    const { out, asked } = await run(
      BOTH,
      () => ({ action: answers.shift() }),
      async (_cx, s) => [(await turn(s, 'url')).t, (await turn(s, 'form')).t],
    );
    const [url, form] = (out as string[]).map((t) => JSON.parse(t));
    expect(url).toMatchObject({ action: 'decline' });
    expect(form).toEqual({ action: 'cancel' });
    expect(asked.map((a) => a.method)).toEqual(['elicitation/create', 'elicitation/create']);
  });

  it('a mode the client did not advertise is refused before sending; url never falls back to form (ACP-ALL-ELIC-01, ACP-ALL-ELIC-05)', async () => {
    const { out, asked } = await run(
      { elicitation: { form: {}, url: null } },
      () => ({ action: 'accept' }),
      async (_cx, s) => [(await turn(s, 'supports')).t, (await turn(s, 'url')).t],
    );
    const [supports, url] = out as string[];
    expect(JSON.parse(supports ?? '')).toEqual({ form: true, url: false });
    expect(url).toMatch(
      /^error: ElicitationNotSupportedError: the client did not advertise elicitation\.url.*never falls back/,
    );
    expect(asked).toEqual([]);
  });

  it('session/cancel withdraws the pending elicitation with $/cancel_request; the author gets cancel (ACP-V2-CANCEL-09)', async () => {
    const { out } = await run(BOTH, never, async (cx, s, asked) => {
      const answered = turn(s, 'hang-form');
      while (asked.length === 0) await new Promise((r) => setImmediate(r));
      await cx.notify('session/cancel', { sessionId: s.sessionId });
      await asked[0]?.aborted;
      return answered;
    });
    const o = out as { r: { stopReason?: string }; t: string };
    expect(o.t).toBe(JSON.stringify({ action: 'cancel' }));
    if (version === 1) expect(o.r.stopReason).toBe('cancelled');
  });
});

describe('session/close with a pending elicitation (v2)', () => {
  it('withdraws it ($/cancel_request) before the close is answered (ACP-V2-CLOSE-02)', async () => {
    const order: string[] = [];
    await v2Run(BOTH, never, async (cx, s, asked) => {
      void s.prompt('hang-form');
      while (asked.length === 0) await new Promise((r) => setImmediate(r));
      void asked[0]?.aborted.then(() => order.push('withdrawn'));
      await cx.request('session/close', { sessionId: s.sessionId });
      order.push('closed');
    });
    expect(order).toEqual(['withdrawn', 'closed']);
  });
});

/**
 * The client runtime's elicitation support (issue 26 item 2): the policy decides what is
 * advertised, answers are read per field type and validated against the requested schema,
 * pending elicitations are visible on the session and withdrawn by `cancel()`, url consent shows
 * the host, completions of unknown ids are ignored. Against the acp-kit agent runtime and against
 * the official SDK's v1 and v2 agents, in process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerElicitations,
  connect,
  decideElicitation,
  declineElicitations,
  urlConsent,
  validateElicitationContent,
  type ClientConnection,
  type ElicitationEvent,
  type ElicitationPolicy,
} from '../src/index.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';
import { elicitingAgent, NAME_SCHEMA } from '../../../test/support/eliciting-agent.js';
import { sdkElicitingAgent } from '../../../test/support/sdk-eliciting-agent.js';

const pairs: InProcessPair[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
  await Promise.all(conns.splice(0).map((c) => c.close()));
});

async function pair(version: 1 | 2, elicitation?: ElicitationPolicy) {
  const p = await connectInProcess(elicitingAgent, { version, client: elicitation ? { elicitation } : {} });
  pairs.push(p);
  const events: ElicitationEvent[] = [];
  p.conn.on('elicitation', (e) => events.push(e));
  const session = await p.conn.newSession({ cwd: '/tmp' });
  const say = async (text: string): Promise<string> => {
    await session.prompt(text);
    const agent = session.state.messageList.filter((m) => m.role === 'agent');
    return agent[agent.length - 1]?.text ?? '';
  };
  return { p, session, say, events };
}

describe.each([1, 2] as const)('client elicitation, acp-kit agent runtime, v%i', (version) => {
  it('without a policy nothing is advertised; with one, the modes it answers (ACP-ALL-ELIC-01, ACP-V1-CAP-02)', async () => {
    const none = await pair(version);
    expect(JSON.parse(await none.say('supports'))).toEqual({ form: false, url: false });
    const formOnly = await pair(version, answerElicitations({}));
    expect(JSON.parse(await formOnly.say('supports'))).toEqual({ form: true, url: false });
    const both = await pair(version, declineElicitations());
    expect(JSON.parse(await both.say('supports'))).toEqual({ form: true, url: true });
    expect(both.p.tap.failures).toEqual([]);
  });

  it('answers are read per field type, defaults filled, titles map to values (ACP-ALL-ELIC-07)', async () => {
    const { say, events, p } = await pair(version, answerElicitations({ name: 'Ada', age: '36', color: 'Green' }));
    expect(JSON.parse(await say('form'))).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36, color: 'g', subscribe: false },
    });
    expect(events.map((e) => e.type)).toEqual(['asked', 'answered']);
    expect(p.tap.failures).toEqual([]);
  });

  it('a missing required answer or an invalid one declines with the reason (ACP-ALL-ELIC-07)', async () => {
    const missing = await pair(version, answerElicitations({ age: 3 }));
    expect(JSON.parse(await missing.say('form'))).toEqual({ action: 'decline' });
    expect(missing.events[1]).toMatchObject({
      type: 'answered',
      reason: expect.stringMatching(/name: no answer given/),
    });
    const invalid = await pair(version, answerElicitations({ name: 'Ada', age: 'old', color: 'blue' }));
    expect(JSON.parse(await invalid.say('form'))).toEqual({ action: 'decline' });
    const answered = invalid.events.find((e) => e.type === 'answered');
    expect(answered && 'reason' in answered ? answered.reason : '').toMatch(
      /age: must be a integer.*color: must be one of "r", "g"/,
    );
  });

  it('url: the host is shown; consent accepts and the completion is reported; no consent declines (ACP-ALL-ELIC-06, ACP-ALL-ELIC-11: full URL shown, never fetched)', async () => {
    const printed: string[] = [];
    const yes = await pair(version, { url: urlConsent({ consent: true, print: (l) => printed.push(l) }) });
    const got = JSON.parse(await yes.say('url'));
    expect(got).toMatchObject({ action: 'accept' });
    expect(printed).toEqual([
      'The agent asks you to open https://auth.example.com/consent?flow=1 (host: auth.example.com): Sign in',
    ]);
    expect(yes.events.map((e) => e.type)).toEqual(['asked', 'answered', 'completed']);
    expect(yes.events[2]).toEqual({
      type: 'completed',
      sessionId: yes.session.sessionId,
      elicitationId: got.elicitationId,
    });
    const no = await pair(version, { url: urlConsent({ consent: false, print: () => undefined }) });
    expect(JSON.parse(await no.say('url'))).toMatchObject({ action: 'decline' });
    expect(no.events.map((e) => e.type)).toEqual(['asked', 'answered']);
  });

  it('a pending elicitation is visible on the session; cancel() withdraws it and the agent gets cancel', async () => {
    let asked!: () => void;
    const arrived = new Promise<void>((r) => (asked = r));
    const waiting: ElicitationPolicy = {
      form: (_req, ctx) =>
        new Promise((resolve) => {
          asked();
          ctx.signal.addEventListener('abort', () =>
            resolve({ response: { action: 'accept', content: { name: 'late' } } }),
          );
        }),
    };
    const { session, say } = await pair(version, waiting);
    const reply = say('hang-form');
    await arrived;
    expect(session.pendingElicitations).toEqual([expect.objectContaining({ mode: 'form', message: 'Who are you?' })]);
    session.cancel();
    // withdrawn: even the policy's late accept is not sent
    expect(JSON.parse(await reply)).toEqual({ action: 'cancel' });
    expect(session.pendingElicitations).toEqual([]);
  });
});

describe.each([1, 2] as const)('client elicitation, official SDK v%i agent', (version) => {
  it('form and url answered and validated; completion of an unknown id ignored (ACP-ALL-ELIC-09)', async () => {
    const events: ElicitationEvent[] = [];
    const conn = await connect({
      transport: sdkElicitingAgent(version),
      protocol: version,
      elicitation: answerElicitations({ name: 'Bo' }, { url: urlConsent({ consent: true, print: () => undefined }) }),
    });
    conns.push(conn);
    conn.on('elicitation', (e) => events.push(e));
    const session = await conn.newSession({ cwd: '/tmp' });
    await session.prompt('go');
    const lines = session.state.messageList
      .filter((m) => m.role === 'agent')
      .map((m) => m.text)
      .join('')
      .split('\n');
    const said = (prefix: string) =>
      JSON.parse(lines.find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? 'null');
    expect(said('form:')).toEqual({ action: 'accept', content: { name: 'Bo', subscribe: false } });
    expect(said('url:')).toEqual({ action: 'accept' });
    expect(events.filter((e) => e.type === 'completed')).toEqual([
      { type: 'completed', sessionId: session.sessionId, elicitationId: 'el-1' },
    ]);
  });
});

describe('v2 foreground state while the user is asked', () => {
  it('requires_action before the elicitation, running after the answer (ACP-V2-ELIC-01, ACP-V2-LIFE-07)', async () => {
    const { p, say } = await pair(2, answerElicitations({ name: 'Ada' }));
    await say('form');
    const seen = p.wire.flatMap((w) => {
      if (w.msg.method === 'elicitation/create') return ['elicitation/create'];
      if (w.dir === 'out' && w.msg.id !== undefined && w.msg.result?.action) return ['answer'];
      const u = w.msg.method === 'session/update' ? w.msg.params?.update : undefined;
      return u?.sessionUpdate === 'state_update' ? [u.state] : [];
    });
    expect(seen).toEqual(['running', 'requires_action', 'elicitation/create', 'answer', 'running', 'idle']);
  });
});

describe('decideElicitation', () => {
  const scope = { sessionId: 's' };
  it('refuses a mode the policy does not answer, and an unknown mode, with -32602 (ACP-ALL-ELIC-10, ACP-ALL-ELIC-12)', async () => {
    const url = { ...scope, mode: 'url' as const, message: 'm', elicitationId: 'e', url: 'https://x.example' };
    await expect(
      decideElicitation(answerElicitations({}), url, { signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('"url"'),
    });
    const odd = { ...scope, mode: '_later', message: 'm' } as never;
    await expect(
      decideElicitation(declineElicitations(), odd, { signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('never sends content that does not fit the form: an invalid accept becomes cancel (ACP-ALL-ELIC-07)', async () => {
    const form = { ...scope, mode: 'form' as const, message: 'm', requestedSchema: NAME_SCHEMA };
    const sloppy = { form: () => ({ response: { action: 'accept' as const, content: { age: -1 } } }) };
    const d = await decideElicitation(sloppy, form, { signal: new AbortController().signal });
    expect(d.response).toEqual({ action: 'cancel' });
    expect(d.reason).toMatch(/name: is required.*age: must be at least 0/);
  });
});

describe('validateElicitationContent', () => {
  it('checks every field type and the required list', () => {
    expect(validateElicitationContent(NAME_SCHEMA, { name: 'x', age: 2, color: 'r', subscribe: true })).toEqual({
      ok: true,
      content: { name: 'x', age: 2, color: 'r', subscribe: true },
    });
    const bad = validateElicitationContent(NAME_SCHEMA, { age: 2.5, subscribe: 'yes', extra: 1 });
    expect(bad).toEqual({
      ok: false,
      problems: [
        'extra: is not a field of the form',
        'name: is required',
        'age: must be an integer',
        'subscribe: must be true or false',
      ],
    });
  });
});

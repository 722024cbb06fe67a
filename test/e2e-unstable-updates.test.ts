// The unstable update kinds agents ship (both versions' schema.unstable.json): subagent_update,
// session_message, session_message_chunk, plan_removed, through the real agent runtime, codec,
// client runtime and session state, in process; every wire update of these kinds is checked
// against the official unstable schema of the version spoken. Also the invariant that an update
// kind nobody knows yet keeps flowing raw, into the child sessions too.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClientConnection } from '../packages/client/src/index.js';
import { loadSchema } from '../packages/protocol/src/validation/schema-source.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startE2E, type Wire } from './support/e2e.js';

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const script = (actions: unknown[]): string => JSON.stringify({ actions });
const text = (t: string) => ({ type: 'text', text: t });
const send = (update: Record<string, unknown>) => ({ send: update });
/** A raw `session/update` for another session id (a child), as an agent sends its subagents' work. */
const child = (sessionId: string, update: Record<string, unknown>) => ({
  clientNotify: 'session/update',
  params: { sessionId, update },
});

const UNSTABLE = new Set(['subagent_update', 'session_message', 'session_message_chunk', 'plan_removed']);

/** Every wire update of an unstable kind, checked against the unstable schema's `SessionNotification`. */
function unstableFailures(v: 1 | 2, wire: Wire[]): unknown[] {
  const schema = loadSchema(v, 'unstable') as { $defs: Record<string, unknown> };
  const ajv = new Ajv2020({ strict: false, logger: false });
  ajv.addSchema({ $id: 'acp', $defs: schema.$defs });
  const check = ajv.getSchema(`acp#/$defs/${v === 1 ? 'SessionNotification' : 'UpdateSessionNotification'}`);
  if (!check) throw new Error('no SessionNotification def');
  const out: unknown[] = [];
  for (const w of wire) {
    if (w.dir !== 'in' || w.msg.method !== 'session/update') continue;
    const kind = (w.msg.params?.update as { sessionUpdate?: string } | undefined)?.sessionUpdate ?? '';
    if (UNSTABLE.has(kind) && !check(w.msg.params)) out.push({ kind, errors: check.errors });
  }
  return out;
}

const wireKinds = (wire: Wire[]) =>
  wire
    .filter((w) => w.dir === 'in' && w.msg.method === 'session/update')
    .map((w) => (w.msg.params as { update: { sessionUpdate: string } }).update.sessionUpdate);

describe.each([1, 2] as const)('unstable update kinds over v%i', (v) => {
  it('subagents are nested sessions with their own updates; session messages upsert and stream', async () => {
    const { conn, wire, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const seen: Array<[string, string]> = [];
    s.onUpdate((u, state) => seen.push([state.sessionId, u.sessionUpdate]));
    await s.prompt(
      script([
        send({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Search', cwd: '/tmp/sub' }),
        child('child-1', { sessionUpdate: 'agent_message_chunk', messageId: 'c1', content: text('found it') }),
        child('child-1', { sessionUpdate: 'subagent_update', sessionId: 'grandchild', title: 'Deeper' }),
        child('grandchild', { sessionUpdate: 'agent_message_chunk', messageId: 'g1', content: text('deep') }),
        send({
          sessionUpdate: 'session_message',
          messageId: 'sm1',
          senderSessionId: 'child-1',
          recipientSessionId: 'main',
          content: [text('report: ')],
        }),
        send({ sessionUpdate: 'session_message_chunk', messageId: 'sm1', content: text('done') }),
        send({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: null, description: 'searching' }),
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('parent text') }),
      ]),
    );
    const sub = s.state.subagents.get('child-1');
    expect(sub?.title).toBeUndefined(); // `null` cleared it
    expect(sub?.description).toBe('searching');
    expect(sub?.cwd).toBe('/tmp/sub');
    expect(sub?.session.message('agent', 'c1')?.text).toBe('found it');
    expect(sub?.session.subagents.get('grandchild')?.session.message('agent', 'g1')?.text).toBe('deep');
    // the child's message did not leak into the parent's transcript
    expect(s.state.message('agent', 'c1')).toBeUndefined();
    expect(s.state.message('agent', 'm1')?.text).toBe('parent text');
    const sm = s.state.sessionMessages.get('sm1');
    expect(sm?.text).toBe('report: done');
    expect([sm?.senderSessionId, sm?.recipientSessionId]).toEqual(['child-1', 'main']);
    // the parent's listeners saw the children's updates with the children's states
    expect(seen).toContainEqual(['child-1', 'agent_message_chunk']);
    expect(seen).toContainEqual(['grandchild', 'agent_message_chunk']);
    expect(s.state.unknownUpdates).toEqual([]);
    expect(wireKinds(wire)).toEqual(expect.arrayContaining(['subagent_update', 'session_message_chunk']));
    expect(unstableFailures(v, wire)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('plan_removed clears that plan from the state', async () => {
    const { conn, wire, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    const entries = [{ content: 'step', priority: 'medium', status: 'pending' }];
    await s.prompt(
      script([
        send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'main', entries } }),
        send({ sessionUpdate: 'plan_removed', planId: 'main' }),
      ]),
    );
    // v1: one implicit plan, re-sent empty; v2 stable: an empty plan with that id (codec README)
    const plan = s.state.plans.get('main');
    expect(plan === undefined || (plan.plan.type === 'items' && plan.plan.entries.length === 0)).toBe(true);
    expect(wireKinds(wire).filter((k) => k.startsWith('plan'))).toHaveLength(2);
    expect(problems).toEqual([]);
  });

  it('a kind nobody knows yet flows raw into the parent and into a child (never dropped on decode)', async () => {
    const { conn, problems } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt(
      script([
        send({ sessionUpdate: 'subagent_update', sessionId: 'child-1' }),
        child('child-1', { sessionUpdate: 'future_kind_x', payload: [1] }),
        {
          clientNotify: 'session/update',
          params: { sessionId: s.sessionId, update: { sessionUpdate: 'future_kind_y', n: 2 } },
        },
        send({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('after') }),
      ]),
    );
    expect(s.state.unknownUpdates).toEqual([{ sessionUpdate: 'future_kind_y', n: 2 }]);
    expect(s.state.subagents.get('child-1')?.session.unknownUpdates).toEqual([
      { sessionUpdate: 'future_kind_x', payload: [1] },
    ]);
    expect(s.state.message('agent', 'm')?.text).toBe('after');
    expect(problems).toEqual([]);
  });
});

describe('usage on the prompt result (unstable v1 PromptResponse.usage, end-turn token usage RFD)', () => {
  const usage = { totalTokens: 1290, inputTokens: 1234, outputTokens: 56, cachedReadTokens: 1000 };

  it('v1: the agent author returns it, the wire result carries it (valid per the unstable schema), the client exposes it', async () => {
    const { conn, wire, problems } = await start(1);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(JSON.stringify({ actions: [], stop: { stopReason: 'end_turn', usage } }));
    expect(r.stopReason).toBe('end_turn');
    expect(r.usage).toEqual(usage);
    const schema = loadSchema(1, 'unstable') as { $defs: Record<string, unknown> };
    const ajv = new Ajv2020({ strict: false, logger: false });
    ajv.addSchema({ $id: 'acp', $defs: schema.$defs });
    const check = ajv.getSchema('acp#/$defs/PromptResponse');
    const results = wire.filter((w) => w.dir === 'in' && isObj(w.msg.result) && 'stopReason' in w.msg.result);
    expect(results.map((w) => w.msg.result)).toEqual([{ stopReason: 'end_turn', usage }]);
    expect(check?.(results[0]?.msg.result)).toBe(true);
    // not part of the state's idle update: usage is no foreground state
    expect(s.state.foreground.state).toBe('idle');
    expect(problems).toEqual([]);
  });

  it('v2: the prompt is answered at insertion, so there is no usage on the result', async () => {
    const { conn, problems } = await start(2);
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt(JSON.stringify({ actions: [], stop: { stopReason: 'end_turn', usage } }));
    expect(r.stopReason).toBe('end_turn');
    expect(r.usage).toBeUndefined();
    expect(problems).toEqual([]);
  });
});

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const start = (v: 1 | 2) => startE2E(v, open);

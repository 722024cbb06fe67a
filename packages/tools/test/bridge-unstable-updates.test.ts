// The bridge carries the unstable update kinds (subagent_update, session_message(_chunk): the same
// shape in both versions' schema.unstable.json) and a child session's own updates, and keeps
// unknown future kinds flowing raw toward a v2 editor. Toward a v1 editor that did not advertise
// `subagents` they are dropped and logged (docs/bridge.md: what the target lacks is dropped+logged).
import { describe, expect, it } from 'vitest';
import { agentRoundTrip, bridgePair } from '../../../test/support/bridge-harness.js';

type Msg = Record<string, unknown>;
const text = (t: string) => ({ type: 'text', text: t });
const update = (sessionId: string, u: Msg): Msg => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: u },
});
const updatesOf = (got: Msg[]) =>
  got
    .filter((m) => m.method === 'session/update')
    .map((m) => m.params as { sessionId: string; update: { sessionUpdate: string } });

const SHARED: Msg[] = [
  { sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Search', state: { state: 'running' } },
  { sessionUpdate: 'session_message', messageId: 'sm1', senderSessionId: 'child-1', content: [text('hi')] },
  { sessionUpdate: 'session_message_chunk', messageId: 'sm1', content: text(' there') },
];

describe('bridge: unstable update kinds', () => {
  it('v1 agent -> v2 editor: subagent kinds, a child session update and an unknown kind all arrive', async () => {
    const p = bridgePair(2);
    for (const u of SHARED) p.agent.deliver(update('s-1', u));
    p.agent.deliver(update('child-1', { sessionUpdate: 'agent_message_chunk', messageId: 'c1', content: text('x') }));
    p.agent.deliver(update('s-1', { sessionUpdate: 'future_kind_z', deep: { a: 1 } }));
    const got = updatesOf(await agentRoundTrip(p, 0));
    expect(got.map((g) => [g.sessionId, g.update.sessionUpdate])).toEqual([
      ['s-1', 'subagent_update'],
      ['s-1', 'session_message'],
      ['s-1', 'session_message_chunk'],
      ['child-1', 'agent_message_chunk'],
      ['s-1', 'future_kind_z'],
    ]);
    expect(got[0]?.update).toEqual(SHARED[0]);
    expect(got[4]?.update).toEqual({ sessionUpdate: 'future_kind_z', deep: { a: 1 } });
    expect(p.log).toEqual([]);
  });

  it('v2 agent -> v1 editor without `subagents`: dropped and logged once per kind, the rest flows', async () => {
    const p = bridgePair(1);
    for (const u of SHARED) p.agent.deliver(update('s-1', u));
    p.agent.deliver(update('s-1', { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('shown') }));
    const got = updatesOf(await agentRoundTrip(p, 0));
    expect(got.map((g) => g.update.sessionUpdate)).toEqual(['agent_message_chunk']);
    for (const kind of ['subagent_update', 'session_message', 'session_message_chunk'])
      expect(p.log.filter((l) => l.includes(`dropped a ${kind} update`))).toHaveLength(1);
  });

  it('plan_removed: v2 agent -> v1 editor re-sends the merged plan without it; v1 agent -> v2 editor gets an empty plan of that id', async () => {
    const entries = [{ content: 'step', priority: 'medium', status: 'pending' }];
    const to1 = bridgePair(1);
    to1.agent.deliver(update('s-1', { sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p', entries } }));
    to1.agent.deliver(update('s-1', { sessionUpdate: 'plan_removed', planId: 'p' }));
    const got1 = updatesOf(await agentRoundTrip(to1, 0)).map((g) => g.update);
    expect(got1).toEqual([
      { sessionUpdate: 'plan', entries },
      { sessionUpdate: 'plan', entries: [] },
    ]);
    const to2 = bridgePair(2);
    to2.agent.deliver(update('s-1', { sessionUpdate: 'plan_removed', planId: 'main' }));
    const got2 = updatesOf(await agentRoundTrip(to2, 0)).map((g) => g.update);
    expect(got2).toEqual([{ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'main', entries: [] } }]);
  });
});

/**
 * Elicitation through the translating bridge (issue 26 item 2), both ways: v1 agent <-> v2 editor
 * and v2 agent <-> v1 editor. `elicitation/create` and its answer are re-encoded for each side and
 * checked against that side's schema (the taps), `elicitation/complete` is carried (it was dropped
 * as "no counterpart" before), the editor's per-mode capabilities reach the agent in its version,
 * and a v1 agent's unscoped elicitation is refused to it (-32602) rather than invented a scope.
 */
import { describe, expect, it } from 'vitest';
import { Translator } from '../src/proxy/bridge/translator.js';
import { codecFor } from '../../protocol/src/codec/index.js';
import { getValidator } from '../../protocol/src/validation/validator.js';
import { agentAsks, agentRoundTrip, bridgePair, type BridgePair } from '../../../test/support/bridge-harness.js';

type Msg = Record<string, any>;
const valid = (p: BridgePair): void => {
  p.editorTap.assertAllValid();
  p.agentTap.assertAllValid();
};
const FORM = {
  sessionId: 's-1',
  mode: 'form',
  message: 'Pick',
  requestedSchema: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 1 }, c: { type: 'string', enum: ['a', 'b'] } },
    required: ['n'],
  },
};
const URL_ASK = { sessionId: 's-1', mode: 'url', message: 'Sign in', elicitationId: 'e-1', url: 'https://x.example/a' };

describe.each([1, 2] as const)('bridge elicitation, editor v%i', (editorVersion) => {
  it('a form goes to the editor in its version and its answer back in the agent version (ACP-ALL-ELIC-03, ACP-ALL-ELIC-07)', async () => {
    const p = bridgePair(editorVersion);
    const { answer, editorGot } = await agentAsks(p, 'elicitation/create', FORM, {
      action: 'accept',
      content: { n: 2, c: 'b' },
    });
    const asked = editorGot.find((m) => m.method === 'elicitation/create');
    expect(asked?.params).toMatchObject({ sessionId: 's-1', mode: 'form', requestedSchema: FORM.requestedSchema });
    expect(answer.result).toEqual({ action: 'accept', content: { n: 2, c: 'b' } });
    valid(p);
  });

  it('a url elicitation and its completion are carried; an unknown answer action reaches the agent as cancel (ACP-ALL-ELIC-09)', async () => {
    const p = bridgePair(editorVersion);
    const { answer } = await agentAsks(p, 'elicitation/create', URL_ASK, { action: 'later' });
    expect(answer.result).toEqual({ action: 'cancel' });
    const from = p.editor.sent.length;
    p.agent.deliver({ jsonrpc: '2.0', method: 'elicitation/complete', params: { elicitationId: 'e-1' } });
    const got = await agentRoundTrip(p, from);
    expect(got).toEqual([{ jsonrpc: '2.0', method: 'elicitation/complete', params: { elicitationId: 'e-1' } }]);
    expect(p.log.filter((l) => l.includes('elicitation'))).toEqual([]);
    valid(p);
  });

  it("the editor's per-mode capabilities reach the agent as its version's markers (ACP-V1-CAP-02, ACP-ALL-ELIC-01)", () => {
    const agentVersion = editorVersion === 1 ? 2 : 1;
    const A = codecFor(agentVersion);
    const E = codecFor(editorVersion);
    const editorWire =
      editorVersion === 1
        ? { protocolVersion: 1, clientCapabilities: { elicitation: { form: {}, url: null } } }
        : { protocolVersion: 2, info: { name: 'e', version: '1' }, capabilities: { elicitation: { form: {} } } };
    const wire = Translator.agentInitParams(A, E.decodeParams('initialize', editorWire)) as Msg;
    expect(getValidator(agentVersion).params('initialize', wire)).toBeNull();
    const caps = agentVersion === 1 ? wire.clientCapabilities : wire.capabilities;
    expect(caps.elicitation).toEqual({ form: {} });
  });
});

describe('bridge elicitation: v2 editor cancels a v1 agent turn', () => {
  it("the pending elicitation is withdrawn from the editor and answered cancel to the agent (the v1 client's duty)", async () => {
    const p = bridgePair(2);
    p.editor.deliver({ jsonrpc: '2.0', id: 'n1', method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
    const req = await p.agent.next((m) => m.method === 'session/new');
    p.agent.deliver({ jsonrpc: '2.0', id: req.id as string, result: { sessionId: 's-1' } });
    await p.editor.next((m) => m.id === 'n1' && m.method === undefined);
    p.agent.deliver({ jsonrpc: '2.0', id: 'el', method: 'elicitation/create', params: FORM });
    const asked = await p.editor.next((m) => m.method === 'elicitation/create');
    p.editor.deliver({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's-1' } });
    const answer = await p.agent.next((m) => m.id === 'el' && m.method === undefined);
    expect(answer.result).toEqual({ action: 'cancel' });
    const withdrawn = await p.editor.next((m) => m.method === '$/cancel_request');
    expect(withdrawn.params).toEqual({ requestId: asked.id });
    valid(p);
  });
});

describe('bridge elicitation: a v1 agent unscoped, to a v2 editor', () => {
  it('is refused to the agent with -32602 and never reaches the editor (documented in docs/bridge.md)', async () => {
    const p = bridgePair(2);
    // v1's way to name no scope: `requestId: null` ("no request"; v2 has no null id)
    const { sessionId: _s, ...rest } = URL_ASK;
    const { answer, editorGot } = await agentAsks(
      p,
      'elicitation/create',
      { ...rest, requestId: null },
      { action: 'accept' },
    );
    expect(editorGot.filter((m) => m.method === 'elicitation/create')).toEqual([]);
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringContaining('sessionId or a requestId') });
  });
});

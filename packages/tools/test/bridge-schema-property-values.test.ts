// Found by packages/tools/test/bridge-schema-property.test.ts: values one version's schema allows and the other's
// does not, which the bridge passed on as they were (each fix sits in the codec's one place for
// that difference; docs/bridge.md lists them). Each case is the property's counterexample, reduced.
import { describe, expect, it } from 'vitest';
import {
  agentAsks,
  agentRoundTrip,
  bridgePair,
  editorRoundTrip,
  type BridgePair,
} from '../../../test/support/bridge-harness.js';

type Msg = Record<string, any>;

const updateFromAgent = async (p: BridgePair, update: Msg): Promise<Msg[]> => {
  const from = p.editor.sent.length;
  p.agent.deliver({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's-1', update } });
  return (await agentRoundTrip(p, from))
    .filter((m) => m.method === 'session/update')
    .map((m) => (m.params as Msg).update as Msg);
};

const valid = (p: BridgePair): void => {
  p.editorTap.assertAllValid();
  p.agentTap.assertAllValid();
};

/** `session/new` from the editor, answered by the agent with `result`; returns the editor's answer. */
async function newSession(p: BridgePair, result: Msg): Promise<Msg> {
  p.editor.deliver({ jsonrpc: '2.0', id: 'n1', method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
  const req = await p.agent.next((m) => m.method === 'session/new');
  p.agent.deliver({ jsonrpc: '2.0', id: req.id, result });
  return p.editor.next((m) => m.id === 'n1' && m.method === undefined);
}

describe('bridge, v1 agent -> v2 editor: v1-only values', () => {
  it('compaction content blocks get the v1 -> v2 value rules (priority outside 0..1 left out)', async () => {
    const p = bridgePair(2);
    const [u] = await updateFromAgent(p, {
      sessionUpdate: 'compaction_summary_chunk',
      compactionId: 'c',
      content: { type: 'text', text: 'x', annotations: { priority: -0.5 } },
    });
    expect(u!.content).toEqual({ type: 'text', text: 'x', annotations: {} });
    const [v] = await updateFromAgent(p, {
      sessionUpdate: 'compaction_update',
      compactionId: 'c',
      status: 'completed',
      summary: [{ type: 'text', text: 'y', annotations: { priority: 2 } }],
    });
    expect(v!.summary).toEqual([{ type: 'text', text: 'y', annotations: {} }]);
    valid(p);
  });

  it('a permission request with no options is refused to the agent, never sent to the v2 editor', async () => {
    const p = bridgePair(2);
    const { answer, editorGot } = await agentAsks(p, 'session/request_permission', {
      sessionId: 's-1',
      toolCall: { toolCallId: 't1', title: 'go' },
      options: [],
    });
    expect(editorGot.filter((m) => m.method === 'session/request_permission')).toEqual([]);
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.options') });
    valid(p);
  });

  it('config options: empty groups and selects with nothing to choose are left out of a session/new result', async () => {
    const p = bridgePair(2);
    const answer = await newSession(p, {
      sessionId: 's-1',
      configOptions: [
        { id: 'none', name: 'None', type: 'select', currentValue: 'x', options: [] },
        {
          id: 'model',
          name: 'Model',
          type: 'select',
          currentValue: 'a',
          options: [
            { group: 'g1', name: 'G1', options: [] },
            { group: 'g2', name: 'G2', options: [{ value: 'a', name: 'A' }] },
          ],
        },
      ],
    });
    expect(answer.result.configOptions).toEqual([
      {
        configId: 'model',
        name: 'Model',
        type: 'select',
        currentValue: 'a',
        options: [{ groupId: 'g2', name: 'G2', options: [{ value: 'a', name: 'A' }] }],
      },
    ]);
    valid(p);
  });

  it('elicitation: requestId null is left out, an unscoped one or one offering no choice is refused, type/properties filled', async () => {
    const p = bridgePair(2);
    const asked = await agentAsks(
      p,
      'elicitation/create',
      { sessionId: 's-1', requestId: null, mode: 'form', message: 'name?', requestedSchema: {} },
      { action: 'decline' },
    );
    const sent = asked.editorGot.find((m) => m.method === 'elicitation/create')!;
    expect(sent.params).toEqual({
      sessionId: 's-1',
      mode: 'form',
      message: 'name?',
      requestedSchema: { type: 'object', properties: {} },
    });
    const unscoped = await agentAsks(p, 'elicitation/create', {
      mode: 'url',
      elicitationId: 'e',
      url: 'https://example.invalid/',
      message: 'open',
      requestId: null,
    });
    expect(unscoped.answer.error).toMatchObject({ code: -32602 });
    const empty = await agentAsks(p, 'elicitation/create', {
      sessionId: 's-1',
      mode: 'form',
      message: 'pick',
      requestedSchema: { type: 'object', properties: { c: { type: 'string', enum: [] } } },
    });
    expect(empty.answer.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('requestedSchema.properties.c'),
    });
    valid(p);
  });
});

describe('bridge, v1 editor -> v2 agent: v1-only values', () => {
  it('an empty prompt is refused to the editor; prompt blocks get the value rules', async () => {
    const p = bridgePair(1);
    await newSession(p, { sessionId: 's-1' });
    const from = p.agent.sent.length;
    p.editor.deliver({ jsonrpc: '2.0', id: 'p0', method: 'session/prompt', params: { sessionId: 's-1', prompt: [] } });
    const refused = await p.editor.next((m) => m.id === 'p0');
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.prompt') });
    p.editor.deliver({
      jsonrpc: '2.0',
      id: 'p1',
      method: 'session/prompt',
      params: {
        sessionId: 's-1',
        prompt: [{ type: 'resource_link', name: 'f', uri: 'file:///f', size: -1, annotations: { priority: 7 } }],
      },
    });
    const got = await editorRoundTrip(p, from);
    const prompts = got.filter((m) => m.method === 'session/prompt');
    expect(prompts).toHaveLength(1); // only the second one
    expect((prompts[0]!.params as Msg).prompt).toEqual([
      { type: 'resource_link', name: 'f', uri: 'file:///f', annotations: {} },
    ]);
    valid(p);
  });
});

describe('bridge, v2 agent -> v1 editor: v2-only values', () => {
  it('a custom audience role is left out of a content block', async () => {
    const p = bridgePair(1);
    const [u] = await updateFromAgent(p, {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm',
      content: { type: 'text', text: 'x', annotations: { audience: ['_robot', 'user'] } },
    });
    expect(u!.content.annotations).toEqual({ audience: ['user'] });
    valid(p);
  });

  it('permission options of a custom kind are not offered to the v1 editor', async () => {
    const p = bridgePair(1);
    const options = [
      { optionId: 'y', name: 'Yes', kind: 'allow_once' },
      { optionId: 'z', name: 'Later', kind: '_defer' },
    ];
    const { editorGot } = await agentAsks(
      p,
      'session/request_permission',
      { sessionId: 's-1', title: 'Run?', subject: { type: 'command', command: 'ls', cwd: '/tmp' }, options },
      { outcome: { outcome: 'selected', optionId: 'y' } },
    );
    const asked = editorGot.find((m) => m.method === 'session/request_permission')!;
    expect((asked.params as Msg).options).toEqual([options[0]]);
    valid(p);
  });

  it('elicitation: a custom string format is left out of the requested schema', async () => {
    const p = bridgePair(1);
    const schema = {
      type: 'object',
      properties: { when: { type: 'string', format: '_duration' }, mail: { type: 'string', format: 'email' } },
    };
    const { editorGot } = await agentAsks(
      p,
      'elicitation/create',
      { sessionId: 's-1', mode: 'form', message: 'm', requestedSchema: schema },
      { action: 'decline' },
    );
    const asked = editorGot.find((m) => m.method === 'elicitation/create')!;
    expect((asked.params as Msg).requestedSchema.properties).toEqual({
      when: { type: 'string' },
      mail: { type: 'string', format: 'email' },
    });
    valid(p);
  });
});

describe('bridge, v2 editor -> v1 agent: v2-only values in answers', () => {
  it('elicitation answer values v1 cannot carry (v2 "Other": any JSON) are left out', async () => {
    const p = bridgePair(2);
    const schema = { type: 'object', properties: { mail: { type: 'string' } } };
    const { answer } = await agentAsks(
      p,
      'elicitation/create',
      { sessionId: 's-1', mode: 'form', message: 'm', requestedSchema: schema },
      { action: 'accept', content: { mail: 'a@b.c', when: { h: 1 } } },
    );
    expect(answer.result, JSON.stringify(answer)).toEqual({ action: 'accept', content: { mail: 'a@b.c' } });
    valid(p);
  });
});

// What the runtime does with what the author sends and what the client may send: config changes
// the author announces (ACP-ALL-CFG-05), an author's mode switch over v2 (ACP-V2-CFG-04), the
// runtime-owned foreground state (ACP-V2-LIFE-05/06), tool calls first described by a permission
// question (ACP-V1-TOOL-01, ACP-V1-PERM-01, ACP-V2-PERM-02) and prompt content the agent did not
// advertise (ACP-V2-CONT-01, ACP-ALL-CONT-01/02). Real agent process (test/fixtures/e2e-agent.mjs).
import { afterEach, describe, expect, it } from 'vitest';
import {
  openSession,
  promptTurn,
  roundTrip,
  startAgent,
  tempDataDir,
  text,
  type Harness,
} from '../../../test/support/agent-harness.js';

const running: Harness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
});

function start(env: Record<string, string> = {}): Harness {
  const h = startAgent({ fixture: 'e2e-agent.mjs', env });
  running.push(h);
  return h;
}

const script = (actions: unknown[], stop?: unknown) =>
  text(JSON.stringify(stop === undefined ? { actions } : { actions, stop }));
const send = (update: Record<string, unknown>) => ({ send: update });
/** `[id, currentValue]` pairs of a wire list (v1 names the id `id`, v2 `configId`). */
const values = (list: Array<{ configId?: string; id?: string; currentValue: unknown }>) =>
  list.map((o) => [o.configId ?? o.id, o.currentValue]);

describe.each([1, 2] as const)('author updates over v%i', (v) => {
  it("config changes the author announces are the session's options: answered by set_config_option and restored", async () => {
    const dir = tempDataDir();
    const h = start({ E2E_STORE_DIR: dir });
    const sessionId = await openSession(h, v);
    // the fixture's options (neutral shape), with the model changed by the author
    const model = [
      {
        type: 'select',
        configId: 'mode',
        name: 'Mode',
        category: 'mode',
        currentValue: 'ask',
        options: [
          { value: 'ask', name: 'Ask' },
          { value: 'code', name: 'Code' },
        ],
      },
      {
        type: 'select',
        configId: 'model',
        name: 'Model',
        category: 'model',
        currentValue: 'large',
        options: [
          { value: 'small', name: 'Small' },
          { value: 'large', name: 'Large' },
        ],
      },
      { type: 'boolean', configId: 'fast', name: 'Fast', currentValue: false },
    ];
    await promptTurn(
      h,
      sessionId,
      script([
        send({ sessionUpdate: 'config_option_update', configOptions: model }),
        send({ sessionUpdate: 'current_mode_update', currentModeId: 'code' }),
      ]),
    );
    const res = await h.request('session/set_config_option', {
      sessionId,
      configId: 'fast',
      type: 'boolean',
      value: true,
    });
    // v1 clients that did not advertise boolean options do not see `fast`
    expect(values(res.configOptions)).toEqual(
      v === 2
        ? [
            ['mode', 'code'],
            ['model', 'large'],
            ['fast', true],
          ]
        : [
            ['mode', 'code'],
            ['model', 'large'],
          ],
    );
    h.assertAgentMessagesValid();
    await h.close();

    // the store kept the author's values: a new agent process restores them
    const b = start({ E2E_STORE_DIR: dir });
    const init = await b.request(
      'initialize',
      v === 2
        ? { protocolVersion: 2, info: { name: 't', version: '1' }, capabilities: {} }
        : { protocolVersion: 1, clientCapabilities: {} },
    );
    expect(init.protocolVersion).toBe(v);
    const restored = await b.request(v === 1 ? 'session/load' : 'session/resume', {
      sessionId,
      cwd: '/tmp',
      mcpServers: [],
    });
    expect(values(restored.configOptions).slice(0, 2)).toEqual([
      ['mode', 'code'],
      ['model', 'large'],
    ]);
    if (v === 1) expect(restored.modes.currentModeId).toBe('code');
    b.assertAgentMessagesValid();
  });

  it("an author's state_update never reaches the wire; one warning per session", async () => {
    const h = start();
    const sessionId = await openSession(h, v);
    const early = { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' };
    const { response, idle } = await promptTurn(
      h,
      sessionId,
      script(
        [
          send(early),
          { sessionSend: early },
          send({ sessionUpdate: 'agent_message_chunk', messageId: 'z', content: { type: 'text', text: 'after' } }),
        ],
        'max_tokens',
      ),
    );
    expect((idle ?? response).stopReason).toBe('max_tokens');
    const states = h.updates(sessionId).filter((u) => u.sessionUpdate === 'state_update');
    // only the runtime's own: running, then the final idle (v1 has none)
    expect(states).toEqual(
      v === 2
        ? [
            { sessionUpdate: 'state_update', state: 'running' },
            { sessionUpdate: 'state_update', state: 'idle', stopReason: 'max_tokens' },
          ]
        : [],
    );
    const kinds = h.updates(sessionId).map((u) => u.sessionUpdate);
    expect(kinds.indexOf('agent_message_chunk')).toBeLessThan(v === 2 ? kinds.lastIndexOf('state_update') : Infinity);
    await promptTurn(h, sessionId, script([send(early)]));
    expect(h.stderr().match(/dropped a state_update sent by the agent/g)).toHaveLength(1);
    h.assertAgentMessagesValid();
  });

  it('a tool call first described by a permission question goes out (and is stored) before the request, once', async () => {
    const dir = tempDataDir();
    const h = start({ E2E_STORE_DIR: dir });
    h.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    const sessionId = await openSession(h, v);
    const ask = (toolCall: Record<string, unknown>, as: string) => ({
      ask: {
        title: 'Write /tmp/x?',
        subject: { type: 'tool_call', toolCall },
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
      },
      as,
    });
    await promptTurn(
      h,
      sessionId,
      script([
        ask({ toolCallId: 'w1', title: 'Write file', kind: 'edit', status: 'pending' }, 'a'),
        send({ sessionUpdate: 'tool_call_update', toolCallId: 'w1', status: 'completed' }),
        // announced by the author already: the same fields are not sent again
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'w2',
          title: 'Read file',
          kind: 'read',
          status: 'pending',
        }),
        ask({ toolCallId: 'w2', title: 'Read file' }, 'b'),
        send({ sessionUpdate: 'tool_call_update', toolCallId: 'w2', status: 'completed' }),
      ]),
    );
    const order = h.received
      .filter(
        (m) =>
          m.method === 'session/request_permission' || (m.method === 'session/update' && m.params.update.toolCallId),
      )
      .map((m) =>
        m.method === 'session/update' ? `${m.params.update.sessionUpdate}:${m.params.update.toolCallId}` : 'ask',
      );
    const first = v === 1 ? 'tool_call' : 'tool_call_update';
    expect(order).toEqual([`${first}:w1`, 'ask', 'tool_call_update:w1', `${first}:w2`, 'ask', 'tool_call_update:w2']);
    const w1 = h.updates(sessionId).find((u) => u.toolCallId === 'w1');
    expect(w1).toMatchObject({ title: 'Write file', kind: 'edit', status: 'pending' });
    h.assertAgentMessagesValid();
    await h.close();

    // restored in a new process: the call keeps its title and kind
    const b = start({ E2E_STORE_DIR: dir });
    await b.request(
      'initialize',
      v === 2
        ? { protocolVersion: 2, info: { name: 't', version: '1' }, capabilities: {} }
        : { protocolVersion: 1, clientCapabilities: {} },
    );
    await b.request(v === 1 ? 'session/load' : 'session/resume', {
      sessionId,
      cwd: '/tmp',
      mcpServers: [],
      ...(v === 2 ? { replayFrom: { type: 'start' } } : {}),
    });
    const replayed = b.updates(sessionId).filter((u) => u.toolCallId === 'w1');
    expect(replayed[0]).toMatchObject({ sessionUpdate: first, title: 'Write file', kind: 'edit' });
    expect(replayed.at(-1)).toMatchObject({ status: 'completed' });
    b.assertAgentMessagesValid();
  });

  it('prompt content the agent did not advertise is -32602 naming the block and the capability; nothing is inserted', async () => {
    const h = start();
    const sessionId = await openSession(h, v);
    const bad = async (prompt: unknown[], index: number, words: RegExp) => {
      const before = h.updates(sessionId).length;
      const err = await h.request('session/prompt', { sessionId, prompt }).then(
        () => undefined,
        (e: { code: number; message: string; data?: { path?: string } }) => e,
      );
      expect(err).toMatchObject({ code: -32602, data: { path: `params.prompt[${index}]` } });
      expect(err!.message).toMatch(words);
      await roundTrip(h);
      // no user_message, no state change
      expect(h.updates(sessionId).length).toBe(before);
    };
    // the e2e agent advertises image and embeddedContext, not audio
    await bad(
      [
        { type: 'text', text: 'hi' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
      1,
      /audio.*"audio"/,
    );
    if (v === 2) await bad([{ type: '_acme/sketch', strokes: [] }], 0, /"_acme\/sketch" is not supported/);
    // baseline and advertised content is accepted
    const ok = [
      { type: 'text', text: 'hi' },
      { type: 'resource_link', uri: 'file:///tmp/a', name: 'a' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///tmp/b', text: 'b' } },
    ];
    const { response, idle } = await promptTurn(h, sessionId, ok);
    expect((idle ?? response).stopReason).toBe('end_turn');
    h.assertAgentMessagesValid();
  });
});

describe('author mode switch over v2 (ACP-V2-CFG-04)', () => {
  it('is a config_option_update of the current list, including set_config_option changes', async () => {
    const h = start();
    const sessionId = await openSession(h, 2);
    await h.request('session/set_config_option', { sessionId, configId: 'model', type: 'id', value: 'large' });
    await promptTurn(h, sessionId, script([send({ sessionUpdate: 'current_mode_update', currentModeId: 'code' })]));
    const cfg = h.updates(sessionId).filter((u) => u.sessionUpdate === 'config_option_update');
    expect(cfg).toHaveLength(1);
    expect(values(cfg[0].configOptions)).toEqual([
      ['mode', 'code'],
      ['model', 'large'],
      ['fast', false],
    ]);
    h.assertAgentMessagesValid();
  });
});

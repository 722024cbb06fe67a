// Found by packages/tools/test/bridge-schema-property.test.ts: an update the editor's version has no form for was
// dropped by the bridge without a word (the property's "dropped only with a reported problem").
// Counterexamples: a v1 `current_mode_update` for a session whose mode option the v2 editor does not
// know; a v2 `agent_message` with `content: null` (a clear v1 cannot express) for a v1 editor.
import { describe, expect, it } from 'vitest';
import { agentRoundTrip, bridgePair } from '../../../test/support/bridge-harness.js';

describe('bridge: an update the editor cannot be shown is reported, once per session and kind', () => {
  it('v1 agent, v2 editor: a mode change with no known mode option is dropped and logged', async () => {
    const p = bridgePair(2);
    for (const modeId of ['code', 'ask']) {
      p.agent.deliver({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId: 's-1', update: { sessionUpdate: 'current_mode_update', currentModeId: modeId } },
      });
    }
    const got = await agentRoundTrip(p, 0);
    expect(got.filter((m) => m.method === 'session/update')).toEqual([]);
    const lines = p.log.filter((l) => l.includes('dropped a current_mode_update update of session s-1'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ACP v2 has no form for it');
    p.editorTap.assertAllValid();
  });

  it('v2 agent, v1 editor: a cleared agent message and display-terminal output are dropped and logged', async () => {
    const p = bridgePair(1);
    const send = (update: Record<string, unknown>): void =>
      p.agent.deliver({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's-9', update } });
    send({ sessionUpdate: 'agent_message', messageId: 'm1', content: null });
    send({ sessionUpdate: 'terminal_output_chunk', terminalId: 't1', data: 'hi' });
    send({ sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'text', text: 'shown' } });
    const got = await agentRoundTrip(p, 0);
    // what v1 can carry still arrives
    expect(
      got
        .filter((m) => m.method === 'session/update')
        .map((m) => (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate),
    ).toEqual(['agent_message_chunk']);
    expect(p.log.some((l) => l.includes('dropped a agent_message update of session s-9'))).toBe(true);
    expect(p.log.some((l) => l.includes('dropped a terminal_output_chunk update of session s-9'))).toBe(true);
    p.editorTap.assertAllValid();
  });
});

// The proxy-chain methods (`proxy/initialize`, `proxy/successor`, Proxy Chains RFD) at the v1<->v2
// bridge. The bridge is no proxy component: a conductor sends it plain `initialize` when it is the
// chain's agent (its place: `conduct -- <component> -- acp-kit proxy --bridge <v> -- <agent>`), and
// a conductor behind it looks like any agent. So a proxy-chain request that reaches it is refused
// -32601 naming the reason: before, a `proxy/initialize` was held until an `initialize` that never
// came (the chain hung), and after `initialize` the refusal said the agent's version lacked it.
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type BridgeHandle } from '../src/proxy/index.js';
import { agentAsks, bridgePair, editorRoundTrip } from '../../../test/support/bridge-harness.js';

type Msg = Record<string, unknown>;
const NOT_A_PROXY = /the v1<->v2 bridge is no proxy component/;

describe.each([1, 2] as const)('translating bridge, v%i editor: proxy-chain requests', (editorVersion) => {
  it("the editor's proxy/successor is refused -32601 and never reaches the agent", async () => {
    const p = bridgePair(editorVersion, 'unstable');
    const env = { method: 'session/prompt', params: { sessionId: 's', prompt: [] } };
    p.editor.deliver({ jsonrpc: '2.0', id: 'ps-1', method: 'proxy/successor', params: env });
    const answer = await p.editor.next((m) => m.id === 'ps-1' && m.method === undefined, 0, 'the refusal');
    expect(answer.error).toMatchObject({ code: -32601, message: expect.stringMatching(NOT_A_PROXY) });
    expect(await editorRoundTrip(p, 0)).toEqual([]);
    p.editorTap.assertAllValid();
  });

  it("the agent's proxy/initialize is refused -32601 and never reaches the editor", async () => {
    const p = bridgePair(editorVersion, 'unstable');
    const params = { protocolVersion: p.agentVersion, clientCapabilities: {} };
    const { answer, editorGot } = await agentAsks(p, 'proxy/initialize', params);
    expect(answer.error).toMatchObject({ code: -32601, message: expect.stringMatching(NOT_A_PROXY) });
    expect(editorGot).toEqual([]);
  });
});

describe('bridge before initialize: a conductor sends proxy/initialize', () => {
  let bridge: BridgeHandle | undefined;
  afterEach(async () => {
    await bridge?.stop();
  });

  it('is answered -32601 at once (the chain fails to start instead of hanging)', async () => {
    const editorIn = new PassThrough();
    const editorOut = new PassThrough();
    bridge = startBridge({
      mode: 2,
      command: process.execPath,
      // an agent that reads and never answers: the refusal must not depend on it
      args: ['-e', 'process.stdin.resume()'],
      editorIn,
      editorOut,
      agentStderr: new PassThrough().resume(),
    });
    const lines = createInterface({ input: editorOut })[Symbol.asyncIterator]();
    const params = { protocolVersion: 2, info: { name: 'conductor', version: '1' }, capabilities: {} };
    editorIn.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'proxy/initialize', params })}\n`);
    const first = await lines.next();
    const answer = JSON.parse(String(first.value)) as Msg;
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32601 } });
    expect((answer.error as Msg).message).toMatch(NOT_A_PROXY);
  });
});

// MCP over ACP (`mcp/message`, unstable MCP-over-ACP RFD) across the v1<->v2 bridge. The envelope
// is the same in both versions' schema.unstable.json; what differs is where the agent advertises
// the `acp` MCP transport (v1 `agentCapabilities.mcpCapabilities.acp`, v2
// `capabilities.session.mcp.acp`), which the bridge translates with the rest of `initialize`.
// The agent's `mcp/message` request reaches the editor and its answer comes back; the editor's
// `mcp/message` notification (an inner progress report) reaches the agent; the inner MCP method,
// params, result and error cross untouched. Every frame on both legs is checked against its
// version's schema.unstable.json (the harness's taps).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { agentAsks, bridgePair, editorRoundTrip } from '../../../test/support/bridge-harness.js';
import { startBridgedAgent, type BridgedAgent } from '../../../test/support/bridged-agent.js';
import { tempDir } from '../../../test/support/temp.js';

type Msg = Record<string, unknown>;
const SERVER_ID = '550e8400-e29b-41d4-a716-446655440000';
const INNER_PARAMS = {
  name: 'echo',
  arguments: { text: 'hi', nested: [1, { deep: null }] },
  _meta: { progressToken: 7 },
};

describe.each([1, 2] as const)('bridge, v%i editor: mcp/message', (editorVersion) => {
  it("the agent's mcp/message request reaches the editor unchanged and its inner result comes back", async () => {
    const p = bridgePair(editorVersion, 'unstable');
    const call = { serverId: SERVER_ID, requestId: 'r-1', method: 'tools/call', params: INNER_PARAMS };
    const inner = { result: { content: [{ type: 'text', text: 'echo:hi' }], isError: false } };
    const { answer, editorGot } = await agentAsks(p, 'mcp/message', call, inner);
    expect(editorGot.map((m) => [m.method, m.params])).toEqual([['mcp/message', call]]);
    expect(answer.result).toEqual(inner);
    p.editorTap.assertAllValid();
    p.agentTap.assertAllValid();
    expect(p.editorTap.knownMethods.has('mcp/message')).toBe(true);
    expect(p.agentTap.knownMethods.has('mcp/message')).toBe(true);
  });

  it('an inner MCP error is the outcome of a successful outer answer, carried as is', async () => {
    const p = bridgePair(editorVersion, 'unstable');
    const call = { serverId: SERVER_ID, requestId: 'r-2', method: 'prompts/list' };
    const inner = { error: { code: -32601, message: 'Method not found', data: { why: 'no prompts' } } };
    const { answer } = await agentAsks(p, 'mcp/message', call, inner);
    expect(answer.result).toEqual(inner);
    expect(answer.error).toBeUndefined();
    p.editorTap.assertAllValid();
    p.agentTap.assertAllValid();
  });

  it("the editor's mcp/message notification (inner progress) reaches the agent unchanged", async () => {
    const p = bridgePair(editorVersion, 'unstable');
    const note: Msg = {
      serverId: SERVER_ID,
      requestId: 'r-1',
      method: 'notifications/progress',
      params: { progressToken: 7, progress: 1, total: 2 },
    };
    p.editor.deliver({ jsonrpc: '2.0', method: 'mcp/message', params: note });
    const got = await editorRoundTrip(p, 0);
    expect(got.map((m) => [m.method, m.params])).toEqual([['mcp/message', note]]);
    expect(p.log).toEqual([]);
    p.editorTap.assertAllValid();
    p.agentTap.assertAllValid();
  });
});

/** An MCP SDK server whose read-only `echo` tool (run without asking) answers `echo:<text>`. */
function echoServer(): McpServer {
  const server = new McpServer({ name: 'tools', version: '1.0.0' });
  const config = { inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } };
  server.registerTool('echo', config, ({ text }) => ({
    content: [{ type: 'text', text: `echo:${text}` }],
  }));
  return server;
}

describe.each([1, 2] as const)('bridge, v%i editor, the built-in agent on the other version', (editorVersion) => {
  const started: BridgedAgent[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((b) => b.stop()));
  });

  it('the agent sees the editor as an MCP-over-ACP provider: capability, acp server entry, tool call', async () => {
    const b = await startBridgedAgent(editorVersion, { name: 'bridge-mcp-acp' });
    started.push(b);
    const { conn, bridge, agentVersion, editorTap, agentTap, violations } = b;
    expect(await bridge.route).toEqual({ kind: 'translate', editorVersion, agentVersion });
    // the agent's `acp` MCP transport, advertised in its version's place, reaches the editor in its own
    expect(conn.agentCapabilities.mcp?.acp).toBe(true);
    const s = await conn.newSession({
      cwd: tempDir('bridge-mcp-acp-'),
      mcpServers: [{ type: 'acp', name: 'tools', server: echoServer() }],
    });
    expect((await s.prompt('mcp tools echo {"text": "across"}')).stopReason).toBe('end_turn');
    const done = [...s.state.toolCalls.values()].find((t) => t.status === 'completed');
    expect(JSON.stringify(done?.content)).toContain('echo:across');
    editorTap.assertAllValid();
    agentTap.assertAllValid();
    // the inner MCP calls went over mcp/message on both legs (not a stdio fallback)
    expect(editorTap.knownMethods.has('mcp/message')).toBe(true);
    expect(agentTap.knownMethods.has('mcp/message')).toBe(true);
    expect(violations).toEqual([]);
  }, 60_000);
});

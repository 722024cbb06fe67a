import { randomBytes } from 'node:crypto';
import { at } from '@acp-kit/protocol/internal';
import { advertisedCase, type CaseContext } from '../case.js';
import type { WireAnswer, WireMessage } from '../driver.js';
import { PROBE_SERVER_NAME, PROBE_TOOL_NAME, probeAnswer } from '../mcp-probe.js';
import { answering } from '../wire.js';

/** One inner MCP request the agent sent in an `mcp/message`. */
interface InnerRequest {
  method: unknown;
  params: unknown;
}

/**
 * The checker's MCP server over the ACP connection (unstable `mcp/message`): answers the inner
 * requests for `serverId` as the stdio probe does (`{result}` or an inner `{error}`), records
 * them, and refuses another server id with -32602 (an outer binding error, as the SDK's).
 */
function serveProbe(serverId: string, seen: InnerRequest[]): (m: WireMessage) => WireAnswer | undefined {
  return (m) => {
    if (m.method !== 'mcp/message') return undefined;
    if (at(m.params, 'serverId') !== serverId)
      return {
        error: {
          code: -32602,
          message: `Invalid params: no ACP MCP server ${JSON.stringify(at(m.params, 'serverId'))}`,
        },
      };
    const method = at(m.params, 'method');
    const params = at(m.params, 'params');
    seen.push({ method, params });
    const result = probeAnswer(method, params);
    return result === undefined
      ? { result: { error: { code: -32601, message: `Method not found: ${String(method)}` } } }
      : { result: { result } };
  };
}

/**
 * MCP over ACP (unstable: `McpServerAcp`, "The MCP server is provided by an ACP component and
 * communicates over the ACP channel using `mcp/message`"; issue 26 item 5 for client-provided
 * servers). The checker offers its probe server as an `acp` MCP server in `session/new` and asks,
 * in one turn, for its tool with a nonce: the agent must reach the server (an inner `initialize`
 * in an `mcp/message` naming its serverId) and call the tool with the nonce. An LLM agent may
 * decline the request: the miss is reported in the unstable tier, never a failure of the verdict.
 */
export const mcpOverAcp = advertisedCase(
  {
    name: 'unstable/mcp-over-acp',
    title: 'an acp MCP server of session/new is reached by mcp/message and its tool called',
    ids: ['unstable/mcp-over-acp'],
    needs: ['mcpCapabilities.acp', 'session.mcp.acp'],
  },
  async (ctx) => {
    const serverId = `acp-kit-check-${randomBytes(6).toString('hex')}`;
    const nonce = randomBytes(6).toString('hex');
    const seen: InnerRequest[] = [];
    ctx.answerRequest = serveProbe(serverId, seen);
    const sid = await openWithServer(ctx, serverId);
    const t = await ctx.turn(
      sid,
      ctx.driver,
      `mcp ${PROBE_SERVER_NAME} ${PROBE_TOOL_NAME} ${JSON.stringify({ nonce })}`,
    );
    const methods = seen.map((s) => String(s.method));
    if (
      !ctx.judge(
        'unstable/mcp-over-acp',
        methods.includes('initialize'),
        `the agent never sent an mcp/message initialize to the acp MCP server ${serverId} given in session/new (mcpServers dropped)`,
        [t.promptSeq, t.endSeq],
      )
    )
      return;
    const called = seen.some(
      (s) =>
        s.method === 'tools/call' &&
        at(s.params, 'name') === PROBE_TOOL_NAME &&
        at(s.params, 'arguments', 'nonce') === nonce,
    );
    ctx.judge(
      'unstable/mcp-over-acp',
      called,
      `the agent reached the acp MCP server (${methods.join(', ')}) but did not call ${PROBE_TOOL_NAME} with the nonce when the prompt asked for it (an LLM may decline)`,
      [t.promptSeq, t.endSeq],
    );
  },
);

/** session/new with the checker's server as the only MCP server; its session id. */
async function openWithServer(ctx: CaseContext, serverId: string): Promise<string> {
  if (ctx.version === 2 && !ctx.advertises('session')) ctx.skip('the agent advertises no session capability');
  const d = ctx.driver;
  const server = { type: 'acp', name: PROBE_SERVER_NAME, serverId };
  const sent = d.send('session/new', { cwd: ctx.settings.cwd, mcpServers: [server] });
  const r = await d.waitFor(answering(sent.id), ctx.timeout, 'the session/new response', sent.seq);
  const sid = at(r.msg.result, 'sessionId');
  // thrown: the runner fails the case's requirement with it
  if (typeof sid !== 'string')
    throw new Error(`session/new with an acp MCP server failed: ${JSON.stringify(r.msg.error ?? r.msg.result)}`);
  return sid;
}

import { at } from '@acp-kit/protocol/internal';
import type { CaseContext, CheckCase } from '../case.js';
import { McpProbe, PROBE_TOOL_NAME } from '../mcp-probe.js';

/**
 * A client-provided MCP server is really used (issue 26 item 5: silently dropped MCP servers are a
 * top complaint against real agents). The checker passes its own tiny stdio MCP server in
 * `session/new` and asks, in one turn, for its tool with a nonce. The server logs what it receives.
 * Connected (it saw `initialize`): v1 `ACP-V1-SESS-01` (MUST: stdio is baseline), v2
 * `ACP-ALL-SESS-08` (SHOULD; stdio is gated by `session.mcp.stdio`, skipped without it). Used (it
 * saw `tools/call` with the nonce): `ACP-ALL-SESS-08`, a SHOULD warning when missing: an LLM agent
 * may decline a request, so a miss is not proof that the tool was never exposed.
 */
export const mcpClientServer: CheckCase = {
  name: 'mcp/client-server',
  title: 'a client-provided stdio MCP server is connected and its tool called',
  ids: ['ACP-V1-SESS-01', 'ACP-ALL-SESS-08'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    if (ctx.version === 2 && !ctx.advertises('session.mcp.stdio'))
      ctx.skip('the agent does not advertise session.mcp.stdio');
    const probe = new McpProbe();
    try {
      await judgeProbe(ctx, probe);
    } finally {
      probe.dispose();
    }
  },
};

async function judgeProbe(ctx: CaseContext, probe: McpProbe): Promise<void> {
  const connectId = ctx.version === 1 ? 'ACP-V1-SESS-01' : 'ACP-ALL-SESS-08';
  if (ctx.version === 2 && !ctx.advertises('session')) ctx.skip('the agent advertises no session capability');
  const d = ctx.driver;
  const params = { cwd: ctx.settings.cwd, mcpServers: [probe.config(ctx.version)] };
  const sent = d.send('session/new', params);
  const r = await d.waitFor(
    (l) => l.dir === 'in' && l.msg?.method === undefined && JSON.stringify(l.msg?.id) === JSON.stringify(sent.id),
    ctx.timeout,
    'the session/new response',
    sent.seq,
  );
  const sid = at(r.msg?.result, 'sessionId');
  if (typeof sid !== 'string')
    return ctx.fail(
      connectId,
      `session/new with a stdio MCP server failed: ${JSON.stringify(r.msg?.error ?? r.msg?.result)}`,
      [sent.seq, r.seq],
    );
  const t = await ctx.turn(sid, d, probe.prompt());
  const seen = probe.read();
  if (
    !ctx.judge(
      connectId,
      seen.methods.includes('initialize'),
      seen.pid === undefined
        ? 'the agent never started the stdio MCP server passed in session/new (mcpServers dropped)'
        : 'the agent started the stdio MCP server but never sent it initialize',
      [sent.seq, r.seq, t.endSeq],
    )
  )
    return;
  ctx.judge(
    'ACP-ALL-SESS-08',
    probe.calledWithNonce(seen),
    `the agent connected to the MCP server (${seen.methods.join(', ')}) but did not call ${PROBE_TOOL_NAME} with the nonce when the prompt asked for it (an LLM may decline; the tool may not be exposed to the model)`,
    [t.promptSeq, t.endSeq],
  );
}

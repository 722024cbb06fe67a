import { at, isObj } from '@acp-kit/protocol/internal';
import type { CheckCase } from '../case.js';

/** Unknown `_` request: answered -32601. Unknown `_` notification: ignored, not answered. */
export const extensionMethods: CheckCase = {
  name: 'extensions/methods',
  title: 'unknown extension request and notification',
  ids: ['ACP-ALL-EXT-05', 'ACP-ALL-EXT-06', 'ACP-ALL-RPC-02'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const r = await ctx.driver.request(
      '_acp_kit_check/unknown_method',
      { _meta: { 'acp-kit.check/x': 1 } },
      ctx.timeout,
    );
    const code = at(r.error, 'code');
    ctx.judge(
      'ACP-ALL-EXT-05',
      code === -32601,
      `an unknown extension request must be answered with -32601; got ${JSON.stringify(r.error ?? r.result)}`,
      [r.seq],
    );
    const n = ctx.driver.notify('_acp_kit_check/unknown_notification', { x: 1 });
    const ping = await ctx.driver.roundTrip(ctx.timeout);
    const answers = ctx.driver.received(n, ping).filter((m) => m.method === undefined && m.seq !== ping);
    ctx.judge('ACP-ALL-EXT-06', ctx.driver.alive, 'the agent did not survive an unknown extension notification', [n]);
    ctx.judge('ACP-ALL-RPC-02', answers.length === 0, 'the agent answered an extension notification', [
      n,
      ...answers.map((m) => m.seq),
    ]);
  },
};

/** `_meta` everywhere the checker may put it, with contents no agent knows: nothing changes. */
export const metaEverywhere: CheckCase = {
  name: 'extensions/meta',
  // its first request is initialize itself (with _meta)
  ownProcess: true,
  title: '_meta with unknown keys on initialize, session/new and the prompt',
  ids: ['ACP-ALL-EXT-02'],
  protocols: [1, 2],
  async run(ctx) {
    const meta = { 'acp-kit.check/unknown': { nested: [1, null, 'x'] } };
    const params = ctx.initializeParams();
    const caps = ctx.version === 2 ? 'capabilities' : 'clientCapabilities';
    const own = params[caps];
    const r = await ctx.driver.request(
      'initialize',
      { ...params, _meta: meta, [caps]: { ...(isObj(own) ? own : {}), _meta: meta } },
      ctx.timeout,
    );
    if (r.error) return ctx.fail('ACP-ALL-EXT-02', `initialize with _meta failed: ${JSON.stringify(r.error)}`, [r.seq]);
    const result = isObj(r.result) ? r.result : undefined;
    if (result?.protocolVersion !== ctx.version) ctx.skip(`the agent does not speak protocol version ${ctx.version}`);
    ctx.driver.version = ctx.version;
    ctx.initResult = result;
    if (ctx.version === 2 && !ctx.advertises('session')) return ctx.pass('ACP-ALL-EXT-02');
    const s = await ctx.driver.request(
      'session/new',
      { cwd: ctx.settings.cwd, mcpServers: [], _meta: meta },
      ctx.timeout,
    );
    ctx.judge('ACP-ALL-EXT-02', s.error === undefined, `session/new with _meta failed: ${JSON.stringify(s.error)}`, [
      s.seq,
    ]);
  },
};

/** v2 open unions: a prompt block of a custom type is accepted or refused with -32602, nothing else. */
export const customPromptBlock: CheckCase = {
  name: 'extensions/custom-block',
  title: 'a prompt with a custom content block type',
  ids: ['ACP-V2-CONT-01'],
  protocols: [2],
  async run(ctx) {
    await ctx.init();
    const sid = await ctx.newSession();
    const r = await ctx.driver.request(
      'session/prompt',
      { sessionId: sid, prompt: [{ type: '_acp_kit_check_block', data: 'x' }] },
      ctx.timeout,
    );
    const code = at(r.error, 'code');
    ctx.judge(
      'ACP-V2-CONT-01',
      r.error === undefined || code === -32602,
      `a prompt block of an unsupported custom type must be refused with -32602 (or accepted); got ${JSON.stringify(r.error)}`,
      [r.seq],
    );
    if (r.error === undefined) await ctx.waitIdle(sid, r.seq);
  },
};

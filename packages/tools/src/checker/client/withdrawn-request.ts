import { at } from '@acp-kit/protocol/internal';
import type { TranscriptLine } from '../driver.js';
import type { ClientCase } from './context.js';
import { intoTurn, pendingToolCall } from './steps.js';

/**
 * The agent withdraws its own permission request with `$/cancel_request` (ACP-ALL-CREQ-01): the
 * client must still answer it exactly once, with a result (v2: the `cancelled` outcome is the
 * method's cancellation result) or -32800, never leave it hanging (ACP-ALL-CREQ-04). A client that
 * had answered before the withdrawal arrived has answered once: that passes too.
 */
export const clientWithdrawnRequest: ClientCase = {
  name: 'client/withdrawn-request',
  title: 'the agent withdraws a permission request with $/cancel_request',
  ids: ['ACP-ALL-CREQ-04'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const p = ctx.p;
    const toolCallId = 'check-tool-withdrawn';
    const params = pendingToolCall(ctx, sid, toolCallId);
    const id = ctx.id('permission');
    const sent = p.send('session/request_permission', params, id);
    // answered: the client has read the permission request
    await ctx.ping();
    const withdrawn = p.notify('$/cancel_request', { requestId: id });
    const answers = (l: TranscriptLine) => l.dir === 'in' && l.msg?.method === undefined && l.msg?.id === id;
    const first = await p.waitFor(answers, ctx.timeout, 'the answer to the withdrawn permission request', sent);
    const error = first.msg?.error;
    if (error !== undefined && at(error, 'code') !== -32800)
      ctx.fail(
        'ACP-ALL-CREQ-04',
        `the withdrawn permission request was answered with the error ${JSON.stringify(error)}; a cancelled request is answered with its result or -32800`,
        [sent, withdrawn, first.seq],
      );
    const ping = await ctx.ping();
    const all = p.transcript.filter((l) => answers(l) && l.seq <= ping);
    ctx.judge(
      'ACP-ALL-CREQ-04',
      all.length === 1,
      `the withdrawn permission request was answered ${all.length} times; exactly once`,
      all.map((l) => l.seq),
    );
    p.update(sid, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
    ctx.endTurn(req, sid);
  },
};

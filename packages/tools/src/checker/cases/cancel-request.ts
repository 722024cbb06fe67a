import { at } from '@acp-kit/protocol/internal';
import type { CheckCase } from '../case.js';
import { answering } from '../wire.js';

/**
 * `$/cancel_request` (ACP-ALL-CREQ-04): a prompt cancelled right after it was sent is still
 * answered exactly once, with a result or -32800 (supporting the cancel is optional, answering is
 * not); a `$/cancel_request` naming an id the agent never saw is ignored.
 */
export const cancelRequest: CheckCase = {
  name: 'cancel/request',
  title: '$/cancel_request of a pending request',
  ids: ['ACP-ALL-CREQ-04'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const sid = await ctx.newSession();
    const d = ctx.driver;
    const unknownSeq = d.notify('$/cancel_request', { requestId: 'acp-kit-check-never-sent' });
    const sent = d.send('session/prompt', ctx.promptParams(sid, ctx.shortPrompt));
    const cancelSeq = d.notify('$/cancel_request', { requestId: sent.id });
    const answer = await d.waitFor(
      answering(sent.id),
      ctx.turnTimeout,
      'the cancelled session/prompt response',
      sent.seq,
    );
    const code = at(answer.msg?.error, 'code');
    if (answer.msg?.error !== undefined && code !== -32800)
      return ctx.fail(
        'ACP-ALL-CREQ-04',
        `the cancelled session/prompt was answered with the error ${JSON.stringify(answer.msg.error)}; a cancelled request is answered with its result or -32800`,
        [sent.seq, cancelSeq, answer.seq],
      );
    // a v2 turn the cancel did not stop runs on: its end, then a round trip proves nothing else came
    if (ctx.version === 2 && answer.msg?.error === undefined) await ctx.waitIdle(sid, sent.seq);
    const ping = await d.roundTrip(ctx.timeout);
    const key = JSON.stringify(sent.id);
    const answers = d.received(unknownSeq, ping).filter((m) => m.method === undefined && JSON.stringify(m.id) === key);
    ctx.judge(
      'ACP-ALL-CREQ-04',
      answers.length === 1,
      `the cancelled session/prompt was answered ${answers.length} times; exactly once`,
      answers.map((m) => m.seq),
    );
  },
};

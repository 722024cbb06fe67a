import { isUpdate, updateOf, type CaseContext, type CheckCase } from '../case.js';
import type { AgentDriver, WireMessage } from '../driver.js';

/** A replayed piece of conversation: a message or thought update (whole or chunk) of session `sid`. */
const isHistory = (m: WireMessage, sid: string): boolean =>
  isUpdate(m, sid) && /^(user|agent)_(message|thought)/.test(String(updateOf(m)?.sessionUpdate));

/**
 * `session/resume` of `sid` on `d`, then a round trip after its answer (which proves that whatever
 * the agent sent up to the answer has arrived): where the request went out and the message updates
 * of the session seen since. Undefined when the agent refuses.
 */
async function resumeOn(
  ctx: CaseContext,
  d: AgentDriver,
  sid: string,
): Promise<{ start: number; replayed: Array<WireMessage & { seq: number }> } | undefined> {
  const sent = d.send('session/resume', { sessionId: sid, cwd: ctx.settings.cwd, mcpServers: [] });
  const answer = await d.waitFor(
    (l) => l.dir === 'in' && l.msg?.method === undefined && JSON.stringify(l.msg?.id) === JSON.stringify(sent.id),
    ctx.turnTimeout,
    'the session/resume response',
    sent.seq,
  );
  if (answer.msg?.error) return undefined;
  const ping = await d.roundTrip(ctx.timeout);
  return { start: sent.seq, replayed: d.received(sent.seq, ping).filter((m) => isHistory(m, sid)) };
}

/**
 * v1 `session/resume` reconnects without replaying (ACP-V1-RESUME-02: "Unlike `session/load`, the
 * Agent MUST NOT replay the conversation history"), a bug users meet as a doubled transcript. The
 * checker resumes in the process that holds the conversation (an agent that keeps history in
 * memory is judged there); an agent that refuses that is asked again from a second process. No
 * message update of the session may arrive between the request and a round trip after the answer.
 */
export const sessionResumeV1: CheckCase = {
  name: 'sessions/resume-v1',
  // may close the agent's stdin and resume in a second process (ctx.spawn)
  ownProcess: true,
  title: 'session/resume (v1) does not replay',
  ids: ['ACP-V1-RESUME-02'],
  protocols: [1],
  async run(ctx) {
    await ctx.init();
    if (!ctx.advertises('sessionCapabilities.resume'))
      ctx.skip('the agent does not advertise sessionCapabilities.resume');
    const sid = await ctx.newSession();
    // a finished turn makes a conversation that a wrong resume would replay
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    let d = ctx.driver;
    let seen = await resumeOn(ctx, d, sid);
    if (seen === undefined) {
      // the agent may lock sessions its process holds open: the second process starts after the first ended
      await ctx.driver.closeStdin(ctx.timeout);
      d = ctx.spawn();
      await ctx.init(d);
      seen = await resumeOn(ctx, d, sid);
    }
    if (seen === undefined) return ctx.skip('the agent refused session/resume of the session it made; not exercised');
    const { start, replayed } = seen;
    ctx.judge(
      'ACP-V1-RESUME-02',
      replayed.length === 0,
      `session/resume replayed ${replayed.length} message update(s); unlike session/load, v1 resume must not replay the history`,
      [start, ...replayed.map((m) => m.seq)],
      d,
    );
  },
};

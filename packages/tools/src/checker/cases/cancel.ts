import { at, isObj } from '@acp-kit/protocol/internal';
import { isUpdate, updateOf, type CaseContext, type CheckCase } from '../case.js';
import type { TranscriptLine } from '../driver.js';
import { WaitTimeout } from '../wire.js';
import { V1_TURN_UPDATES, V2_WORK_UPDATES } from './prompt.js';

/** How soon after the cancel an ordinary end counts as a race rather than an ignored cancel. */
const RACE_MS = 250;

/**
 * session/cancel once the turn shows work (an update, or a permission request, which is held and
 * answered `cancelled` right after the cancel as a client must). The turn must end `cancelled`,
 * never with an error, and nothing of it may follow its end.
 */
export const cancelTurn: CheckCase = {
  name: 'cancel/turn',
  title: 'session/cancel during a turn',
  ids: [
    'ACP-V1-CANCEL-05',
    'ACP-V1-CANCEL-06',
    'ACP-V1-CANCEL-07',
    'ACP-V2-CANCEL-05',
    'ACP-V2-CANCEL-06',
    'ACP-V2-CANCEL-07',
  ],
  protocols: [1, 2],
  async run(ctx) {
    const v = ctx.version;
    await ctx.init();
    const sid = await ctx.newSession();
    ctx.permissionPolicy = 'hold';
    const d = ctx.driver;
    const { sent, isEnd } = await busyTurn(ctx, sid);
    const cancelSeq = d.notify('session/cancel', { sessionId: sid });
    const cancelledAt = Date.now();
    // held ones now, later ones as they come
    ctx.permissionPolicy = 'cancelled';
    for (const p of ctx.permissionRequests) ctx.answerPermission(p, { outcome: 'cancelled' });
    const [cancelledId, noErrorId, nothingAfterId] =
      v === 1
        ? (['ACP-V1-CANCEL-05', 'ACP-V1-CANCEL-06', 'ACP-V1-CANCEL-07'] as const)
        : (['ACP-V2-CANCEL-05', 'ACP-V2-CANCEL-06', 'ACP-V2-CANCEL-07'] as const);
    const end = await d.waitFor(
      isEnd,
      ctx.turnTimeout,
      v === 1 ? 'the session/prompt response after session/cancel' : 'the idle state_update after session/cancel',
      sent.seq,
    );
    // an end with an error (v1: a JSON-RPC error; v2: stopReason "error") is the capture validator's rule
    const errored = d.violationsOf('cancel-answered-with-error', end.seq - 1, end.seq).length > 0;
    if (v === 1 && errored)
      return ctx.fail(
        noErrorId,
        `the cancelled session/prompt was answered with a JSON-RPC error ${JSON.stringify(end.msg?.error)}; it must end with stopReason "cancelled"`,
        [cancelSeq, end.seq],
      );
    const stop = v === 1 ? at(end.msg, 'result', 'stopReason') : updateOf(end.msg)?.stopReason;
    if (end.seq < cancelSeq)
      ctx.skip('the turn ended before the cancel reached the agent; give --prompt a task that keeps the agent busy');
    // a turn that ended on its own right as the cancel went out (the end was already in the pipe)
    // raced it: not exercised, not a failure (an agent that ignores the cancel ends much later)
    if (stop !== 'cancelled' && stop !== 'error' && Date.now() - cancelledAt < RACE_MS)
      ctx.skip(
        `the turn ended ${JSON.stringify(stop)} within ${RACE_MS} ms of the cancel, before it could have been read; give --prompt a task that keeps the agent busy`,
      );
    if (errored)
      return ctx.fail(noErrorId, `the cancelled turn ended with stopReason "error"; it must end "cancelled"`, [
        cancelSeq,
        end.seq,
      ]);
    ctx.pass(noErrorId);
    ctx.judge(
      cancelledId,
      stop === 'cancelled',
      `the cancelled turn ended with stopReason ${JSON.stringify(stop)}; it must be "cancelled"`,
      [cancelSeq, end.seq],
    );
    const ping = await d.roundTrip(ctx.timeout);
    const kinds = v === 1 ? V1_TURN_UPDATES : V2_WORK_UPDATES;
    const late = d
      .received(end.seq, ping)
      .filter((m) => isUpdate(m, sid) && kinds.has(String(updateOf(m)?.sessionUpdate)));
    ctx.judge(
      nothingAfterId,
      late.length === 0,
      `${late.length} update(s) of the cancelled turn (${late.map((m) => updateOf(m)?.sessionUpdate).join(', ')}) arrived after its end`,
      [end.seq, ...late.map((m) => m.seq)],
    );
  },
};

/**
 * Sends the cancel prompt (the one case-specific long turn) and waits until the turn shows work:
 * an update of the turn, v2's running state, or a permission request (held by the caller's policy).
 * Skips the case when the turn ended first: there was nothing to cancel or close.
 */
async function busyTurn(
  ctx: CaseContext,
  sid: string,
): Promise<{ sent: { seq: number }; isEnd: (l: TranscriptLine) => boolean }> {
  const v = ctx.version;
  const d = ctx.driver;
  const sent = d.send('session/prompt', ctx.promptParams(sid, ctx.settings.cancelPrompt ?? ctx.settings.prompt));
  const isResponse = (l: TranscriptLine) =>
    l.dir === 'in' && l.msg?.method === undefined && JSON.stringify(l.msg?.id) === JSON.stringify(sent.id);
  const isEnd = (l: TranscriptLine) =>
    v === 1 ? isResponse(l) : isUpdate(l.msg, sid, 'state_update') && updateOf(l.msg)?.state === 'idle';
  const busy = await d.waitFor(
    (l) =>
      isEnd(l) ||
      (l.dir === 'in' && l.msg?.method === 'session/request_permission') ||
      (v === 1
        ? isUpdate(l.msg, sid) && V1_TURN_UPDATES.has(String(updateOf(l.msg)?.sessionUpdate))
        : isUpdate(l.msg, sid, 'state_update') && updateOf(l.msg)?.state === 'running'),
    ctx.turnTimeout,
    'a sign of work for the prompt (an update or a permission request)',
    sent.seq,
  );
  if (isEnd(busy))
    ctx.skip(
      `the turn ended before it showed any work to cancel; give --prompt a task that keeps the agent busy (e.g. one that runs a tool)`,
    );
  return { sent, isEnd };
}

/**
 * session/close of a session whose turn is running (ACP-ALL-CLOSE-01: close cancels running work
 * like session/cancel): the turn must end `cancelled` (v1: the prompt answered so; v2: an idle
 * `cancelled` update) and the close must return {}. A turn that ends on its own as the close goes
 * out raced it: not exercised.
 */
export const closeBusySession: CheckCase = {
  name: 'sessions/close-busy',
  title: 'session/close during a turn',
  ids: ['ACP-ALL-CLOSE-01'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const path = ctx.version === 2 ? 'session' : 'sessionCapabilities.close';
    if (!ctx.advertises(path)) ctx.skip(`the agent does not advertise ${path}`);
    const sid = await ctx.newSession();
    // held, then answered cancelled once the close is out (as a client does on cancel)
    ctx.permissionPolicy = 'hold';
    const d = ctx.driver;
    const { sent, isEnd } = await busyTurn(ctx, sid);
    const close = d.send('session/close', { sessionId: sid });
    const closedAt = Date.now();
    ctx.permissionPolicy = 'cancelled';
    for (const p of ctx.permissionRequests) ctx.answerPermission(p, { outcome: 'cancelled' });
    const r = await d.waitFor(
      (l) => l.dir === 'in' && l.msg?.method === undefined && JSON.stringify(l.msg?.id) === JSON.stringify(close.id),
      ctx.turnTimeout,
      'the session/close response',
      close.seq,
    );
    ctx.judge(
      'ACP-ALL-CLOSE-01',
      isObj(r.msg?.result) && r.msg?.error === undefined,
      `session/close of a busy session must return {}; got ${JSON.stringify(r.msg?.error ?? r.msg?.result)}`,
      [close.seq, r.seq],
    );
    // the end of the turn: before the close response or after it (the spec does not order them), so
    // wait for it; a turn that has not ended within the turn timeout never ended
    const end = await d
      .waitFor((l) => isEnd(l), ctx.turnTimeout, 'the end of the closed turn', sent.seq)
      .catch((e: unknown) => {
        if (e instanceof WaitTimeout) return undefined;
        throw e;
      });
    const stop =
      end === undefined
        ? undefined
        : ctx.version === 1
          ? (at(end.msg, 'result', 'stopReason') ?? (end.msg?.error ? 'a JSON-RPC error' : undefined))
          : updateOf(end.msg)?.stopReason;
    if (end !== undefined && end.seq < close.seq)
      ctx.skip('the turn ended before the close reached the agent; give --prompt a task that keeps the agent busy');
    if (stop !== 'cancelled' && stop !== undefined && Date.now() - closedAt < RACE_MS)
      ctx.skip(
        `the turn ended ${JSON.stringify(stop)} within ${RACE_MS} ms of the close, before it could have been read`,
      );
    ctx.judge(
      'ACP-ALL-CLOSE-01',
      stop === 'cancelled',
      end === undefined
        ? `the turn running when session/close arrived never ended (${ctx.version === 1 ? 'no session/prompt answer' : 'no idle state_update'}); close must cancel it like session/cancel, ending it "cancelled"`
        : `the turn running when session/close arrived ended with ${JSON.stringify(stop)}; close must cancel it like session/cancel, ending it "cancelled"`,
      [close.seq, ...(end ? [end.seq] : [])],
    );
  },
};

import { at, isObj } from '@acp-kit/protocol/internal';
import { isUpdate, updateOf, type CaseContext, type CheckCase } from '../case.js';
import type { TranscriptLine, WireMessage } from '../driver.js';
import { WaitTimeout } from '../wire.js';

/** Final statuses of a v2 tool call: after one, the call can no longer be cancelled. */
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** What one cancellable entity kind needs: its update, its id field, its request, when it is over. */
interface Entity {
  kind: 'tool call' | 'terminal';
  update: 'tool_call_update' | 'terminal_update';
  idField: 'toolCallId' | 'terminalId';
  method: 'tool_call/cancel' | 'terminal/cancel';
  requirement: 'ACP-V2-TOOL-11' | 'ACP-V2-TERM-13';
  /** The update that confirms the cancel (a final status, an exit status). */
  isFinal(u: Record<string, unknown>): boolean;
  confirmation: string;
}

const TOOL_CALL: Entity = {
  kind: 'tool call',
  update: 'tool_call_update',
  idField: 'toolCallId',
  method: 'tool_call/cancel',
  requirement: 'ACP-V2-TOOL-11',
  isFinal: (u) => FINAL.has(String(u.status)),
  confirmation: 'a tool_call_update with a final status (cancelled, or completed/failed if it finished first)',
};

const TERMINAL: Entity = {
  kind: 'terminal',
  update: 'terminal_update',
  idField: 'terminalId',
  method: 'terminal/cancel',
  requirement: 'ACP-V2-TERM-13',
  isFinal: (u) => u.exitStatus != null,
  confirmation: 'a terminal_update with its exitStatus',
};

/**
 * The cancel prompt's turn, with permissions allowed so that its tool runs, until the first running
 * entity of kind `e` (a call in progress, a terminal): it must advertise `capabilities.cancel`. Not
 * applicable when it does not, or when the turn ends (or outlasts the turn timeout) without one:
 * then the turn is cancelled.
 */
async function cancellable(ctx: CaseContext, e: Entity, sid: string): Promise<{ id: string; seq: number }> {
  const d = ctx.driver;
  ctx.permissionPolicy = 'allow';
  const sent = d.send('session/prompt', ctx.promptParams(sid, ctx.settings.cancelPrompt ?? ctx.settings.prompt));
  const isIdle = (l: TranscriptLine) => isUpdate(l.msg, sid, 'state_update') && updateOf(l.msg)?.state === 'idle';
  const running = (u: Record<string, unknown> | undefined) =>
    u !== undefined && (e.update === 'terminal_update' ? u.exitStatus == null : u.status === 'in_progress');
  const found = await d
    .waitFor(
      (l) => isIdle(l) || (isUpdate(l.msg, sid, e.update) && running(updateOf(l.msg))),
      ctx.turnTimeout,
      `a running ${e.kind}`,
      sent.seq,
    )
    .catch((err: unknown) => {
      if (!(err instanceof WaitTimeout)) throw err;
      return undefined;
    });
  const u = found && !isIdle(found) ? updateOf(found.msg) : undefined;
  const id = at(u, e.idField);
  if (found === undefined || typeof id !== 'string' || !isObj(at(u, 'capabilities', 'cancel'))) {
    if (!found || !isIdle(found)) d.notify('session/cancel', { sessionId: sid });
    ctx.skip(
      u === undefined
        ? `the turn showed no running ${e.kind} (give --cancel-prompt a task that runs a command)`
        : `the running ${e.kind} ${JSON.stringify(id)} does not advertise capabilities.cancel`,
    );
  }
  return { id, seq: found.seq };
}

/**
 * `tool_call/cancel` / `terminal/cancel` on an entity that advertises it: the agent answers `{}`
 * and confirms with the entity's final update. A call that went final before the cancel reached
 * the agent may be refused with -32602: a race, not exercised.
 */
async function cancelEntity(ctx: CaseContext, e: Entity): Promise<void> {
  await ctx.init();
  const sid = await ctx.newSession();
  const d = ctx.driver;
  const target = await cancellable(ctx, e, sid);
  const isOurs = (m: WireMessage | undefined) => isUpdate(m, sid, e.update) && at(updateOf(m), e.idField) === target.id;
  const finalOf = (after: number) => d.received(after).find((m) => isOurs(m) && e.isFinal(updateOf(m) ?? {}));
  const answer = await d.request(e.method, { sessionId: sid, [e.idField]: target.id }, ctx.timeout);
  if (answer.error !== undefined) {
    const code = at(answer.error, 'code');
    const earlier = finalOf(target.seq);
    if (code === -32602 && earlier !== undefined && earlier.seq < answer.seq)
      ctx.skip(`the ${e.kind} was already final when the cancel arrived (-32602, as required): nothing to cancel`);
    return ctx.fail(
      e.requirement,
      `${e.method} of the ${e.kind} ${JSON.stringify(target.id)}, which advertised capabilities.cancel, was answered with the error ${JSON.stringify(answer.error)}; it must be answered {}`,
      [target.seq, answer.seq],
    );
  }
  if (!isObj(answer.result))
    return ctx.fail(e.requirement, `${e.method} was answered with ${JSON.stringify(answer.result)}, not {}`, [
      answer.seq,
    ]);
  const confirmed = await d
    .waitFor((l) => isOurs(l.msg) && e.isFinal(updateOf(l.msg) ?? {}), ctx.turnTimeout, e.confirmation, target.seq)
    .catch(() => undefined);
  ctx.judge(
    e.requirement,
    confirmed !== undefined,
    `${e.method} was accepted, but ${e.confirmation} for ${JSON.stringify(target.id)} never came`,
    [target.seq, answer.seq],
  );
}

/** v2 `tool_call/cancel` of a running call that advertises it. */
export const cancelToolCall: CheckCase = {
  name: 'cancel/tool-call',
  title: 'tool_call/cancel of a running tool call',
  ids: ['ACP-V2-TOOL-11'],
  protocols: [2],
  run: (ctx) => cancelEntity(ctx, TOOL_CALL),
};

/** v2 `terminal/cancel` of a display terminal that advertises it. */
export const cancelTerminal: CheckCase = {
  name: 'cancel/terminal',
  title: 'terminal/cancel of a running display terminal',
  ids: ['ACP-V2-TERM-13'],
  protocols: [2],
  run: (ctx) => cancelEntity(ctx, TERMINAL),
};

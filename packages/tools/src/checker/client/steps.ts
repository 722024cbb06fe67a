import { setTimeout as delay } from 'node:timers/promises';
import { WaitTimeout } from '../driver.js';
import type { ClientCaseContext } from './context.js';
import { ClientGone, type Received } from './peer.js';

// Steps the client cases share (cases.ts, terminal-cases.ts).

/** Launch, initialize, session/new, and the prompt: where most cases start. */
export async function intoTurn(ctx: ClientCaseContext): Promise<{ sid: string; req: Received }> {
  await ctx.launch();
  await ctx.handshake();
  const sid = await ctx.openSession();
  const req = await ctx.startTurn(sid);
  return { sid, req };
}

/** Polls `cond` (a condition outside the wire, such as a file or a process) until true or `ms` passed. */
export async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await delay(25);
  }
  return true;
}

/**
 * Announces a pending `sleep 60` tool call of the turn and returns the params of a permission
 * request for it (allow / reject once), in the version's shape.
 */
export function pendingToolCall(ctx: ClientCaseContext, sid: string, toolCallId: string): Record<string, unknown> {
  const options = [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ];
  ctx.p.update(
    sid,
    ctx.version === 1
      ? { sessionUpdate: 'tool_call', toolCallId, title: 'Run sleep 60', kind: 'execute', status: 'pending' }
      : { sessionUpdate: 'tool_call_update', toolCallId, title: 'Run sleep 60', kind: 'execute', status: 'pending' },
  );
  return ctx.version === 1
    ? { sessionId: sid, toolCall: { toolCallId }, options }
    : { sessionId: sid, title: 'Run `sleep 60`?', subject: { type: 'tool_call', toolCall: { toolCallId } }, options };
}

export /** Runs `step` and turns the client dying or going silent into a failure of `id`; true when it survived. */
async function survives(
  ctx: ClientCaseContext,
  id: string,
  what: string,
  step: () => Promise<unknown>,
  seqs: number[],
): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (e) {
    if (!(e instanceof ClientGone || e instanceof WaitTimeout)) throw e;
    ctx.fail(
      id,
      `after ${what} the client ${e instanceof ClientGone ? `closed the connection${ctx.exited ? ` and ended (${ctx.describeExit()})` : ''}` : 'stopped answering'}: ${e.message}${ctx.stderrTail()}`,
      seqs,
    );
    return false;
  }
}

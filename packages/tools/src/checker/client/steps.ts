import { setTimeout as delay } from 'node:timers/promises';
import type { ClientCaseContext } from './context.js';
import type { Received } from './peer.js';

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

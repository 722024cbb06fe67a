// `session/list` as the cases read it: every page, bounded, and an entry by id.
import { at } from '@acp-kit/protocol/internal';
import type { CaseContext } from '../case.js';

/** Whether the agent offers `session/list` (v1 `sessionCapabilities.list`, v2 the baseline `session`). */
export const canList = (ctx: CaseContext): boolean =>
  ctx.advertises(ctx.version === 2 ? 'session' : 'sessionCapabilities.list');

/** Every `session/list` entry for the checker's cwd (with `extra` params, e.g. the archive filter), every page. */
export async function listAll(
  ctx: CaseContext,
  extra: Record<string, unknown> = {},
): Promise<{ sessions: unknown[]; seqs: number[]; error?: unknown }> {
  const sessions: unknown[] = [];
  const seqs: number[] = [];
  let cursor: unknown;
  // a page count no honest agent needs for the few sessions of a fresh cwd: a cursor that never ends stops here
  for (let page = 0; page < 20; page++) {
    const params = { cwd: ctx.settings.cwd, ...extra, ...(typeof cursor === 'string' ? { cursor } : {}) };
    const r = await ctx.driver.request('session/list', params, ctx.timeout);
    seqs.push(r.seq);
    if (r.error) return { sessions, seqs, error: r.error };
    const got = at(r.result, 'sessions');
    sessions.push(...(Array.isArray(got) ? got : []));
    cursor = at(r.result, 'nextCursor');
    if (typeof cursor !== 'string') break;
  }
  return { sessions, seqs };
}

/** The `session/list` entry of `sid`, if listed. */
export const entryOf = (sessions: readonly unknown[], sid: string): unknown =>
  sessions.find((s) => at(s, 'sessionId') === sid);

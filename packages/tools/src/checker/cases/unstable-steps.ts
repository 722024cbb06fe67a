import { at } from '@acp-kit/protocol/internal';
import { isUpdate, updateOf, type CaseContext, type CaseInfo, type CheckCase } from '../case.js';
import { answering } from '../wire.js';

/** A session id no agent has made: the unknown-session probes of the unstable methods. */
export const MISSING_SESSION = 'acp-kit-check-no-such-session';

/**
 * A case of a method only `schema.unstable.json` has, which an agent offers only when it
 * advertises the capability at `needs` (its v1 path, its v2 path): initializes, skips unless
 * advertised ("not applicable", as the stable optional methods), runs.
 */
export function unstableCase(
  spec: Omit<CaseInfo, 'protocols'> & { needs: readonly [v1: string, v2: string] },
  run: (ctx: CaseContext) => Promise<void>,
): CheckCase {
  const { needs, ...info } = spec;
  return {
    ...info,
    protocols: [1, 2],
    async run(ctx) {
      await ctx.init();
      const path = ctx.version === 2 ? needs[1] : needs[0];
      if (!ctx.advertises(path)) ctx.skip(`the agent does not advertise ${path}`);
      await run(ctx);
    },
  };
}

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
  // as listedIds (sessions.ts): a cursor that never ends stops after a page count no fresh cwd needs
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

/** The text of a content block or an array of them. */
function blocksText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) => (at(b, 'type') === 'text' && typeof at(b, 'text') === 'string' ? at(b, 'text') : ''))
    .join('');
}

/**
 * The user's side of a session's history as the agent replays it, one string (every user message
 * and chunk, in order): v2 `session/resume` with `replayFrom: {type: "start"}`, v1 `session/load`
 * (only with `loadSession`). Both replay before their answer. Undefined when the agent cannot replay
 * it here (no `loadSession`, or it refused): the history checks are then not exercised.
 */
export async function replayedUserText(ctx: CaseContext, sid: string): Promise<string | undefined> {
  if (ctx.version === 1 && ctx.capabilities.loadSession !== true) return undefined;
  const d = ctx.driver;
  const base = { sessionId: sid, cwd: ctx.settings.cwd, mcpServers: [] };
  const sent =
    ctx.version === 2
      ? d.send('session/resume', { ...base, replayFrom: { type: 'start' } })
      : d.send('session/load', base);
  const answer = await d.waitFor(answering(sent.id), ctx.turnTimeout, 'the replay answer', sent.seq);
  if (answer.msg.error !== undefined) return undefined;
  return d
    .received(sent.seq, answer.seq)
    .filter((m) => isUpdate(m, sid) && /^user_message/.test(String(updateOf(m)?.sessionUpdate)))
    .map((m) => blocksText(updateOf(m)?.content))
    .join('');
}

/** Whether an answer is the error `code` (with `data.sessionId` = `sid` when given). */
export function isError(answer: { error?: unknown }, code: number, sid?: string): boolean {
  if (at(answer.error, 'code') !== code) return false;
  return sid === undefined || at(answer.error, 'data', 'sessionId') === sid;
}

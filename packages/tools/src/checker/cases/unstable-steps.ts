import { at } from '@acp-kit/protocol/internal';
import { isUpdate, updateOf, type CaseContext } from '../case.js';
import { answering } from '../wire.js';

/** A session id no agent has made: the unknown-session probes of the unstable methods. */
export const MISSING_SESSION = 'acp-kit-check-no-such-session';

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

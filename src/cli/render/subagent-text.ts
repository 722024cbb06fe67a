/** Text of the unstable subagent and inter-session message kinds in `run`'s transcript. */
import type { SessionMessage, SessionMessageChunk, SessionState, SubagentUpdate } from '@acp-kit/protocol';
import { stripAnsi, type Style } from '../style.js';

/** One line announcing or changing a subagent, e.g. `↳ subagent "Search" (child-1) running`. */
export function subagentLine(u: SubagentUpdate, style: Style): string {
  const title = typeof u.title === 'string' ? ` ${style.bold(stripAnsi(u.title))}` : '';
  const st = u.state === null ? ' state unconfirmed' : u.state ? ` ${u.state.state}` : '';
  const stop = u.state?.stopReason ? ` (${u.state.stopReason})` : '';
  return `${style.cyan('↳ subagent')}${title} ${style.dim(`(${stripAnsi(u.sessionId)})`)}${st}${stop}`;
}

/** The heading of an inter-session message, e.g. `✉ child-1 → main`. */
export function sessionMessageHeading(u: SessionMessage | SessionMessageChunk, state: SessionState): string {
  const m = state.sessionMessages.get(u.messageId);
  const from = stripAnsi(m?.senderSessionId ?? '?');
  const to = stripAnsi(m?.recipientSessionId ?? '?');
  return `✉ ${from} → ${to}: `;
}

import type { SessionMessageState, SessionState, SubagentState } from '@acp-kit/protocol';
import type { SessionMessageItem, SessionView, SubagentItem } from './api-types.js';

/*
 * The session view's items of the unstable kinds both versions carry (issue 26 item 3): a
 * subagent, shown as a nested block with the child's own conversation, and an inter-session
 * message. Built from the neutral state (packages/protocol/src/state/subagents.ts), like the
 * stable items, with the frames that built them.
 */

/** A child session announced with `subagent_update`, with its own view nested (when it sent anything). */
export function subagentItem(
  sub: SubagentState<SessionState>,
  seqs: number[],
  session: SessionView | undefined,
): SubagentItem {
  return {
    kind: 'subagent',
    key: `subagent:${sub.sessionId}`,
    sessionId: sub.sessionId,
    title: sub.title,
    description: sub.description,
    state: sub.state?.state,
    stopReason: sub.state?.stopReason,
    cwd: sub.cwd,
    session,
    seqs,
  };
}

/** An inter-session message: who sent it to whom, and its content as upserted and streamed. */
export function sessionMessageItem(m: SessionMessageState, seqs: number[]): SessionMessageItem {
  return {
    kind: 'session_message',
    key: `session_message:${m.messageId}`,
    messageId: m.messageId,
    senderSessionId: m.senderSessionId,
    recipientSessionId: m.recipientSessionId,
    content: [...m.content],
    seqs,
  };
}

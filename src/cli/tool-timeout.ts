/**
 * `acp-kit run --tool-timeout <ms>`: a tool call that has been running (`in_progress`) longer
 * than the limit is cancelled alone with v2 `tool_call/cancel` (ACP-V2-TOOL-11), while it
 * advertises `capabilities.cancel`; the turn goes on. Each overdue call is reported once per
 * outcome, so a run's `--json` output says which calls were cut short and why others were not.
 */
import type { ClientSession } from '@acp-kit/client';

/** What happened to a tool call that ran longer than `--tool-timeout`. */
export interface ToolTimeoutReport {
  toolCallId: string;
  title?: string;
  timeoutMs: number;
  /**
   * `cancelled`: `tool_call/cancel` was sent and the agent accepted it; `not-cancellable`: the
   * call does not advertise `capabilities.cancel` (always so with a v1 agent), it is left running
   * (and cancelled later if it starts advertising it); `failed`: the agent answered the cancel
   * with an error (`error`).
   */
  outcome: 'cancelled' | 'not-cancellable' | 'failed';
  error?: string;
}

/** What the watcher uses of a session. */
export type ToolTimeoutSession = Pick<ClientSession, 'state' | 'onUpdate' | 'cancelToolCall'>;

/**
 * Starts a `timeoutMs` timer for each tool call when it is first seen `in_progress`; at expiry a
 * call that is still running is cancelled when it advertises `capabilities.cancel`. `stop` ends
 * the watch (clears every timer); `settled` waits for the answers to the cancels sent, whose
 * reports would otherwise be lost when the turn ends before them (the agent may end the call and
 * the turn before its answer to the cancel arrives).
 */
export function watchToolTimeouts(
  session: ToolTimeoutSession,
  timeoutMs: number,
  report: (r: ToolTimeoutReport) => void,
): { stop(): void; settled(): Promise<void> } {
  const timers = new Map<string, NodeJS.Timeout>();
  /** calls past their limit that did not advertise cancel yet: cancelled as soon as they do */
  const overdue = new Set<string>();
  /** calls a cancel was sent for (never sent twice) */
  const sent = new Set<string>();
  /** the answers to the cancels sent (their reports) */
  const inFlight: Array<Promise<void>> = [];

  const expire = (id: string): void => {
    const tc = session.state.toolCalls.get(id);
    if (!tc || tc.finished) return;
    const title = tc.title !== undefined ? { title: tc.title } : {};
    if (tc.capabilities?.cancel == null) {
      if (!overdue.has(id)) report({ toolCallId: id, ...title, timeoutMs, outcome: 'not-cancellable' });
      overdue.add(id);
      return;
    }
    overdue.delete(id);
    sent.add(id);
    const answered = session.cancelToolCall(id).then(
      () => report({ toolCallId: id, ...title, timeoutMs, outcome: 'cancelled' }),
      (e: unknown) =>
        report({
          toolCallId: id,
          ...title,
          timeoutMs,
          outcome: 'failed',
          error: e instanceof Error ? e.message : String(e),
        }),
    );
    inFlight.push(answered);
  };

  const unsubscribe = session.onUpdate((u) => {
    // v1 `tool_call` arrives as the neutral `tool_call_update` too
    if (u.sessionUpdate !== 'tool_call_update') return;
    const id = u.toolCallId;
    const tc = session.state.toolCalls.get(id);
    if (!tc || tc.finished) {
      clearTimeout(timers.get(id));
      timers.delete(id);
      overdue.delete(id);
      return;
    }
    if (overdue.has(id) && !sent.has(id)) expire(id);
    else if (tc.status === 'in_progress' && !timers.has(id))
      timers.set(
        id,
        setTimeout(() => expire(id), timeoutMs),
      );
  });

  return {
    stop: () => {
      unsubscribe();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
    settled: async () => {
      await Promise.all(inFlight);
    },
  };
}

import type { AuthStatus, PlanEntryStatus, ToolCallStatus } from '@acp-kit/protocol';
import { stripAnsi } from '../style.js';

/** Icon for a tool call status; unknown statuses count as still running (ACP-V2-TOOL-06). */
export function toolStatusIcon(status: ToolCallStatus): string {
  switch (status) {
    case 'pending':
      return '○';
    case 'in_progress':
      return '◐';
    case 'paused':
      return '‖';
    case 'completed':
      return '✓';
    case 'failed':
      return '✗';
    case 'cancelled':
      return '⊘';
    default:
      return '◐';
  }
}

/** Checklist mark for a plan entry. */
export function planMark(status: PlanEntryStatus): string {
  switch (status) {
    case 'completed':
      return '[x]';
    case 'in_progress':
      return '[~]';
    case 'cancelled':
      return '[-]';
    default:
      return '[ ]';
  }
}

/** Human label of a stop reason; unknown ones show as a generic stop (ACP-V2-STOP-02). */
export function describeStopReason(stopReason: string | null | undefined): string {
  switch (stopReason) {
    case 'end_turn':
      return 'end_turn (the agent finished)';
    case 'max_tokens':
      return 'max_tokens (the model hit its token limit)';
    case 'max_turn_requests':
      return 'max_turn_requests (the agent hit its limit of model requests for one turn)';
    case 'refusal':
      return 'refusal (the agent refused; this prompt will not be part of the next prompt\u2019s context)';
    case 'cancelled':
      return 'cancelled';
    case 'error':
      return 'error';
    case null:
    case undefined:
      return 'unknown (no stop reason reported)';
    default:
      return `${stopReason} (stopped)`;
  }
}

/** `1.2k/200k tokens · $0.03` */
export function formatUsage(u: {
  used: number;
  size: number;
  cost?: { amount: number; currency: string } | undefined;
}): string {
  const n = (x: number): string =>
    x >= 10_000 ? `${Math.round(x / 1000)}k` : x >= 1000 ? `${(x / 1000).toFixed(1)}k` : String(x);
  const pct = u.size > 0 ? ` (${Math.round((u.used / u.size) * 100)}%)` : '';
  let s = `${n(u.used)}/${n(u.size)} tokens${pct}`;
  if (u.cost) s += ` · ${formatCost(u.cost)}`;
  return s;
}

/** `$0.0123`, `12.50 credits` */
export function formatCost(c: { amount: number; currency: string }): string {
  return `${c.currency === 'USD' ? '$' : ''}${c.amount.toFixed(c.amount < 1 ? 4 : 2)}${c.currency === 'USD' ? '' : ` ${c.currency}`}`;
}

/**
 * A turn's token counts (the built-in agent's `_meta["acp-kit/usage"]`, for models whose context
 * window is unknown): `1234 tokens (1200 in, 34 out) · $0.0012`. Exact counts, so that they can be
 * compared with the provider's bill.
 */
export function formatTokens(t: {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost?: { amount: number; currency: string };
}): string {
  let s = `${t.totalTokens} tokens (${t.inputTokens} in, ${t.outputTokens} out)`;
  if (t.cost) s += ` · ${formatCost(t.cost)}`;
  return s;
}

/** An auth state change (`auth/status_update`) as one line: the state, then the active account (or the accounts known). */
export function authStatusLine(s: AuthStatus): string {
  const accounts = s.accounts ?? [];
  const active = accounts.filter((a) => a.active);
  const shown = (active.length > 0 ? active : accounts).map((a) => stripAnsi(a.label));
  return `auth: ${stripAnsi(s.state.replaceAll('_', ' '))}${shown.length > 0 ? ` (${shown.join(', ')})` : ''}`;
}

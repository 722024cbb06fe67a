import type { AnyToolCallContent, PermissionOption } from '@acp-kit/protocol';
import type { PendingCall, TurnContext } from './tool-call.js';
import type { Tool } from './tool.js';

/** Permission option ids the engine offers (ACP-ALL-PERM-04). */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
];

/** What the permission gate decided for one tool call. */
export type PermissionDecision =
  | { run: true }
  | { run: false; cancelled: true }
  | { run: false; cancelled?: false; reason: string; showPreview: boolean };

/**
 * The permission gate of one tool call in `ask` mode: remembered "always" answers first, else a
 * `session/request_permission` with the four option kinds. Anything not understood is not
 * approval (ACP-V2-PERM-06); a cancelled request (or turn) cancels the call.
 */
export async function decidePermission(
  ctx: TurnContext,
  c: PendingCall,
  tool: Tool,
  preview: readonly AnyToolCallContent[],
): Promise<PermissionDecision> {
  const { turn, state } = ctx;
  if (state.alwaysReject.has(tool.name)) {
    return {
      run: false,
      reason: `Rejected: the user chose to always reject ${tool.name} in this session.`,
      showPreview: false,
    };
  }
  if (state.alwaysAllow.has(tool.name)) return { run: true };
  const outcome = await turn.requestPermission({
    title: `Allow ${c.title}?`,
    subject: {
      type: 'tool_call',
      toolCall: {
        toolCallId: c.acpId,
        title: c.title,
        name: tool.name,
        kind: tool.kind,
        status: 'pending',
        rawInput: c.call.input,
        ...(preview.length ? { content: [...preview] } : {}),
      },
    },
    options: [...PERMISSION_OPTIONS],
  });
  if (outcome.outcome === 'cancelled' || turn.signal.aborted) return { run: false, cancelled: true };
  const optionId = outcome.outcome === 'selected' ? outcome.optionId : undefined;
  // ACP-V2-PERM-06: anything not understood is not approval
  const chosen = PERMISSION_OPTIONS.find((o) => o.optionId === optionId);
  if (chosen?.kind === 'allow_always') state.alwaysAllow.add(tool.name);
  if (chosen?.kind === 'reject_always') state.alwaysReject.add(tool.name);
  if (chosen?.kind === 'allow_once' || chosen?.kind === 'allow_always') return { run: true };
  const why = chosen
    ? 'The user rejected this tool call.'
    : `The permission answer was not understood (${JSON.stringify(outcome)}); not running the tool.`;
  return { run: false, reason: why, showPreview: true };
}

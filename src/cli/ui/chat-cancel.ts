/**
 * The chat's `/cancel-tool [id]` and `/cancel-terminal [id]` commands (v2 `tool_call/cancel` and
 * `terminal/cancel`): they stop one running tool call or one agent-owned display terminal while
 * the turn goes on, where Ctrl-C (`session/cancel`) ends the whole turn. The agent decides per
 * entity: only a tool call or terminal that advertises `capabilities.cancel` can be cancelled
 * (ACP-V2-TOOL-11, ACP-V2-TERM-13), so the `/` menu offers the commands only while one does.
 * Like `/mode`, they are the chat's own and run at once, also during a turn (never queued).
 */
import type { AvailableCommand, SessionState } from '@acp-kit/protocol';
import type { Note } from './chat-model.js';

/** What the commands use of a session (`ClientSession` has both; they check the capability again). */
export interface CancellingSession {
  readonly state: SessionState;
  cancelToolCall(toolCallId: string): Promise<void>;
  cancelTerminal(terminalId: string): Promise<void>;
}

export type CancelCommandName = 'cancel-tool' | 'cancel-terminal';

const TOOL: AvailableCommand = {
  name: 'cancel-tool',
  description: 'cancel one running tool call, the turn goes on (agent advertises capabilities.cancel on it, v2)',
  input: { hint: 'tool call id (default: the latest running)' },
};
const TERMINAL: AvailableCommand = {
  name: 'cancel-terminal',
  description: "stop one agent terminal's command, the turn goes on (agent advertises capabilities.cancel on it, v2)",
  input: { hint: 'terminal id (default: the latest running)' },
};

/** `/cancel-tool x` → `{ name: 'cancel-tool', arg: 'x' }`; `undefined` for any other text. */
export function parseCancelCommand(text: string): { name: CancelCommandName; arg: string } | undefined {
  const m = /^\/(cancel-tool|cancel-terminal)(?:\s+(.*))?$/s.exec(text.trim());
  if (m?.[1] !== 'cancel-tool' && m?.[1] !== 'cancel-terminal') return undefined;
  return { name: m[1], arg: (m[2] ?? '').trim() };
}

/** A tool call or terminal that can be cancelled now: its id and how the feed names it. */
interface Target {
  id: string;
  label: string;
}

/** Running tool calls that advertise `capabilities.cancel`, oldest first. */
export function cancellableToolCalls(state: SessionState): Target[] {
  return [...state.toolCalls.values()]
    .filter((tc) => !tc.finished && tc.capabilities?.cancel != null)
    .map((tc) => ({ id: tc.toolCallId, label: tc.title ?? tc.name ?? tc.toolCallId }));
}

/** Display terminals still running (no exit status) that advertise `capabilities.cancel`, oldest first. */
export function cancellableTerminals(state: SessionState): Target[] {
  return [...state.terminals.values()]
    .filter((t) => t.exitStatus === undefined && t.capabilities?.cancel != null)
    .map((t) => ({ id: t.terminalId, label: t.command ? `$ ${t.command}` : t.terminalId }));
}

/** The commands the `/` menu offers now: each only while something advertises that it can be cancelled. */
export function cancelMenu(state: SessionState): AvailableCommand[] {
  return [
    ...(cancellableToolCalls(state).length > 0 ? [TOOL] : []),
    ...(cancellableTerminals(state).length > 0 ? [TERMINAL] : []),
  ];
}

/**
 * Runs one cancel command; the note says what was asked of the agent, or why nothing was (nothing
 * cancellable, an unknown id: the note lists the ids that can be cancelled), or the agent's error.
 * The outcome itself shows in the feed as the agent reports it (the call's final status, the
 * terminal's exit).
 */
export async function runCancelCommand(
  session: CancellingSession,
  cmd: { name: CancelCommandName; arg: string },
): Promise<Note> {
  const tool = cmd.name === 'cancel-tool';
  const what = tool ? 'tool call' : 'terminal';
  const targets = tool ? cancellableToolCalls(session.state) : cancellableTerminals(session.state);
  const target = cmd.arg === '' ? targets.at(-1) : targets.find((t) => t.id === cmd.arg);
  if (!target) {
    const none = `no running ${what} advertises capabilities.cancel${tool ? ' (tool_call/cancel, v2)' : ' (terminal/cancel, v2)'}`;
    if (cmd.arg === '' || targets.length === 0) return { kind: 'error', text: `/${cmd.name}: ${none}` };
    const list = targets.map((t) => `${t.id} (${t.label})`).join(', ');
    return { kind: 'error', text: `/${cmd.name}: ${JSON.stringify(cmd.arg)} is not one of them; can cancel: ${list}` };
  }
  try {
    await (tool ? session.cancelToolCall(target.id) : session.cancelTerminal(target.id));
    return { kind: 'info', text: `cancelled ${what} ${target.id} (${target.label}); the turn goes on` };
  } catch (e) {
    return { kind: 'error', text: `/${cmd.name} ${target.id}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

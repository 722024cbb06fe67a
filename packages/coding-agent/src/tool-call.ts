import {
  type AnyToolCallContent,
  type Cost,
  type PlanEntry,
  type SessionUpdate,
  type ToolCallLocation,
  type ToolCallStatus,
  isAbortError,
} from '@acp-kit/protocol';
import type { AgentSession, FormElicitationQuestion, Turn } from '@acp-kit/agent';
import type { LanguageModel, ModelToolCall, ToolResult, ToolSpec } from './model.js';
import { decidePermission } from './permission.js';
import type { Sandbox } from './sandbox.js';
import type { CodingSessionState } from './session-state.js';
import type { CommandRunner } from './terminal.js';
import { textContent, ToolInputError, type Tool, type ToolContext, type ToolOutcome } from './tool.js';
import type { WorkspaceFs } from './workspace-fs.js';
import { isObj } from '@acp-kit/protocol/internal';
import { messageOf } from '@acp-kit/agent/internal';

/** The id of the plan the engine reports (v1's single plan, ACP-V1-PLAN-01). */
export const PLAN_ID = 'main';

/** Name of the engine-handled planning tool offered to models without a native plan channel. */
export const UPDATE_PLAN_TOOL = 'update_plan';

/** Not public API (not exported from `acp-kit/agent`). Everything one turn's steps share. */
export interface TurnContext {
  turn: Turn;
  session: AgentSession;
  state: CodingSessionState;
  model: LanguageModel;
  /** offered to the model (the tools + `update_plan` when enabled) */
  specs: ToolSpec[];
  tools: ReadonlyMap<string, Tool>;
  planTool: boolean;
  sandbox: Sandbox;
  fs: WorkspaceFs;
  terminal: CommandRunner;
  /** final status of a call that did not run to the end because of a cancel (v1 has no `cancelled`) */
  cancelledStatus: ToolCallStatus;
  send(update: SessionUpdate): Promise<void>;
  /** the turn's token counts so far (all model requests added up) */
  tokens: TurnTokenTally;
}

/** Token counts of the model requests of one turn. Not public API (used by the engine's declarations). */
export interface TurnTokenTally {
  /** some request reported usage */
  reported: boolean;
  inputTokens: number;
  outputTokens: number;
  cost?: Cost;
  /** a `usage_update` went out (the window was known), so the `_meta` fallback is not needed */
  sentUsageUpdate: boolean;
}

/** Not public API. A tool call the model asked for, as announced to the client. */
export interface PendingCall {
  call: ModelToolCall;
  /** the ACP tool call id; `''` for an inline `update_plan` */
  acpId: string;
  tool?: Tool;
  input?: unknown;
  inputError?: string;
  title: string;
}

/** Not public API. How one call ended, for the model (`cancelled`: the turn stops here). */
export interface CallOutcome {
  output: string;
  isError?: boolean;
  cancelled?: boolean;
}

export const updatePlanSpec: ToolSpec = {
  name: UPDATE_PLAN_TOOL,
  description:
    'Report your plan for multi-step tasks: the complete list of steps with their status. Call it again with updated statuses as you progress.',
  inputSchema: {
    type: 'object',
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            content: { type: 'string' },
            status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            priority: { type: 'string', enum: ['high', 'medium', 'low'] },
          },
          required: ['content', 'status'],
        },
      },
    },
    required: ['entries'],
  },
};

function parsePlan(raw: unknown): PlanEntry[] {
  const entries = isObj(raw) ? raw.entries : undefined;
  if (!Array.isArray(entries)) throw new ToolInputError('update_plan: "entries" must be an array');
  return entries.map((e, i) => {
    const o = isObj(e) ? e : {};
    if (typeof o.content !== 'string')
      throw new ToolInputError(`update_plan: "entries[${i}].content" must be a string`);
    const status = o.status === 'in_progress' || o.status === 'completed' ? o.status : 'pending';
    const priority = o.priority === 'high' || o.priority === 'low' ? o.priority : 'medium';
    return { content: o.content, status, priority };
  });
}

/**
 * Gives every call in `calls` the final `status` (the one sweep for "the turn ends here"), and
 * returns a result per call carrying `note` for the model.
 */
export async function settleCalls(
  ctx: TurnContext,
  calls: readonly PendingCall[],
  status: ToolCallStatus,
  note: string,
): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  for (const c of calls) {
    await ctx.send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status });
    results.push({ toolCallId: c.call.toolCallId, toolName: c.call.toolName, output: note, isError: true });
  }
  return results;
}

/** Reports a model-requested call immediately as `pending` (ACP-V1-PROMPT-06, ACP-V2-TOOL-01/02/10). */
export async function announceCall(ctx: TurnContext, call: ModelToolCall): Promise<PendingCall> {
  const { session, sandbox, tools } = ctx;
  if (call.toolName === UPDATE_PLAN_TOOL && ctx.planTool) {
    // handled inline: a plan, not a visible tool call
    return { call, acpId: '', title: 'Update plan', input: call.input };
  }
  const acpId = session.newId('tool');
  const tool = tools.get(call.toolName);
  const pc: PendingCall = { call, acpId, tool, title: call.toolName };
  if (!tool) pc.inputError = `unknown tool "${call.toolName}"; available tools: ${[...tools.keys()].join(', ')}`;
  else {
    try {
      pc.input = tool.parse(call.input);
      pc.title = tool.title(pc.input);
    } catch (e) {
      pc.inputError = e instanceof Error ? e.message : String(e);
    }
  }
  let locations: ToolCallLocation[] | undefined;
  if (tool && pc.input !== undefined && tool.locations) {
    try {
      locations = tool.locations(pc.input, { session, sandbox });
    } catch {
      locations = undefined;
    }
  }
  await ctx.send({
    sessionUpdate: 'tool_call_update',
    toolCallId: acpId,
    title: pc.title,
    name: call.toolName,
    kind: tool?.kind ?? 'other',
    status: 'pending',
    rawInput: call.input,
    ...(locations ? { locations } : {}),
  });
  return pc;
}

async function fail(
  ctx: TurnContext,
  c: PendingCall,
  message: string,
  content?: AnyToolCallContent[],
): Promise<CallOutcome> {
  await ctx.send({
    sessionUpdate: 'tool_call_update',
    toolCallId: c.acpId,
    status: 'failed',
    content: content ?? [textContent(message)],
  });
  return { output: message, isError: true };
}

/**
 * Runs one announced call: input errors and read-only mode fail it, a preview is shown, the
 * permission gate decides in `ask` mode, then `in_progress` -> `completed` / `failed`.
 */
export async function runCall(ctx: TurnContext, c: PendingCall): Promise<CallOutcome> {
  const { turn, session, state, sandbox, send } = ctx;
  if (c.call.toolName === UPDATE_PLAN_TOOL && c.acpId === '') {
    try {
      const entries = parsePlan(c.input);
      await send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries } });
      return { output: 'Plan updated.' };
    } catch (e) {
      return { output: messageOf(e), isError: true };
    }
  }
  if (c.inputError !== undefined || !c.tool) return fail(ctx, c, `Invalid tool call: ${c.inputError}`);
  const tool = c.tool;
  const input = c.input;
  const toolCtx: ToolContext = {
    session,
    toolCallId: c.acpId,
    signal: turn.signal,
    cwd: sandbox.cwd,
    sandbox,
    fs: ctx.fs,
    terminal: ctx.terminal,
    progress: (content) => send({ sessionUpdate: 'tool_call_content_chunk', toolCallId: c.acpId, content }),
    send,
    ...(session.supportsElicitation('form')
      ? { elicit: (q: Omit<FormElicitationQuestion, 'toolCallId'>) => turn.elicit({ ...q, toolCallId: c.acpId }) }
      : {}),
  };
  if (tool.mutates && state.mode === 'read-only') {
    return fail(
      ctx,
      c,
      `Refused: the session is in read-only mode, so ${tool.name} is not allowed. Ask the user to switch the mode to "ask" or "auto".`,
    );
  }
  try {
    let preview: AnyToolCallContent[] = [];
    if (tool.preview) {
      preview = await tool.preview(input, toolCtx);
      if (preview.length) await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, content: preview });
    }
    if (state.mode === 'ask' && tool.needsPermission(input, { session, sandbox })) {
      const decision = await decidePermission(ctx, c, tool, preview);
      if (!decision.run) {
        if (decision.cancelled) {
          await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: ctx.cancelledStatus });
          return { output: 'Cancelled by the user.', isError: true, cancelled: true };
        }
        return fail(
          ctx,
          c,
          decision.reason,
          decision.showPreview ? [...preview, textContent(`✖ ${decision.reason}`)] : undefined,
        );
      }
    }
    return await executeCall(ctx, c, tool, input, toolCtx);
  } catch (e) {
    if (turn.signal.aborted || isAbortError(e)) return cancelledCall(ctx, c);
    return fail(ctx, c, `Error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The turn was cancelled while `c` ran or waited: the call ends with the turn (v1 `failed`, v2 `cancelled`). */
async function cancelledCall(ctx: TurnContext, c: PendingCall): Promise<CallOutcome> {
  await ctx.send({
    sessionUpdate: 'tool_call_update',
    toolCallId: c.acpId,
    status: ctx.cancelledStatus,
    content: [textContent('Cancelled.')],
  });
  return { output: 'Cancelled by the user.', isError: true, cancelled: true };
}

/**
 * `in_progress` -> `completed` / `failed`. In v2 the running call advertises `capabilities.cancel`
 * (ACP-V2-TOOL-11): `tool_call/cancel` aborts this call alone, it ends `cancelled`, and the turn
 * goes on (the model is told), unlike a cancel of the turn.
 */
async function executeCall(
  ctx: TurnContext,
  c: PendingCall,
  tool: Tool,
  input: unknown,
  toolCtx: ToolContext,
): Promise<CallOutcome> {
  const { session, turn, send } = ctx;
  const own = new AbortController();
  const off = session.client.protocolVersion === 2 ? session.onCancelToolCall?.(c.acpId, () => own.abort()) : undefined;
  await send({
    sessionUpdate: 'tool_call_update',
    toolCallId: c.acpId,
    status: 'in_progress',
    ...(off ? { capabilities: { cancel: {} } } : {}),
  });
  try {
    const out: ToolOutcome = await tool.execute(input, {
      ...toolCtx,
      signal: AbortSignal.any([turn.signal, own.signal]),
    });
    await send({
      sessionUpdate: 'tool_call_update',
      toolCallId: c.acpId,
      status: out.isError ? 'failed' : 'completed',
      content: out.content,
      ...(out.locations ? { locations: out.locations } : {}),
      ...(out.rawOutput !== undefined ? { rawOutput: out.rawOutput } : {}),
    });
    return { output: out.result, isError: out.isError };
  } catch (e) {
    if (!own.signal.aborted || turn.signal.aborted) throw e;
    await send({
      sessionUpdate: 'tool_call_update',
      toolCallId: c.acpId,
      status: 'cancelled',
      content: [textContent('Cancelled by the client (tool_call/cancel).')],
    });
    return { output: 'The user cancelled this tool call before it finished.', isError: true };
  } finally {
    off?.();
  }
}

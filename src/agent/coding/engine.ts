import type {
  AnyContentBlock, AnyToolCallContent, PermissionOption, PlanEntry, SessionUpdate, ToolCallLocation,
} from '../../protocol/index.js';
import { AcpError, isAbortError } from '../../protocol/index.js';
import type { Turn, TurnResult } from '../types.js';
import {
  abortError, type AssistantPart, type ConversationMessage, type LanguageModel, type ModelFinishReason,
  type ModelToolCall, type ToolResult, type ToolSpec, type UserPart,
} from './model.js';
import { Sandbox } from './sandbox.js';
import { codingState, type CodingSessionState } from './session-state.js';
import { createCommandRunner } from './terminal.js';
import { textContent, ToolInputError, type Tool, type ToolContext, type ToolOutcome } from './tool.js';
import { createWorkspaceFs } from './workspace-fs.js';

/** Default cap on model requests per turn (`max_turn_requests`). */
export const DEFAULT_MAX_TURN_REQUESTS = 25;

/** The id of the plan the engine reports (v1's single plan, ACP-V1-PLAN-01). */
export const PLAN_ID = 'main';

/** Name of the engine-handled planning tool offered to models without a native plan channel. */
export const UPDATE_PLAN_TOOL = 'update_plan';

/** Permission option ids the engine offers (ACP-ALL-PERM-04). */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
];

export interface EngineOptions {
  model: LanguageModel;
  tools: readonly Tool[];
  /** System prompt (a function gets the turn to describe the workspace). */
  system: string | ((turn: Turn, state: CodingSessionState) => string);
  /** Cap on model requests per turn (default {@link DEFAULT_MAX_TURN_REQUESTS}). */
  maxTurnRequests?: number;
  /** Passed to the model; a `length` finish ends the turn with `max_tokens`. */
  maxOutputTokens?: number;
  /** Offer the `update_plan` tool (default true). */
  planTool?: boolean;
}

const updatePlanSpec: ToolSpec = {
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
  const entries = (raw as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) throw new ToolInputError('update_plan: "entries" must be an array');
  return entries.map((e, i) => {
    const o = e as { content?: unknown; status?: unknown; priority?: unknown };
    if (typeof o?.content !== 'string') throw new ToolInputError(`update_plan: "entries[${i}].content" must be a string`);
    const status = o.status === 'in_progress' || o.status === 'completed' ? o.status : 'pending';
    const priority = o.priority === 'high' || o.priority === 'low' ? o.priority : 'medium';
    return { content: o.content, status, priority };
  });
}

/** Converts a prompt to the model's user message (resources inlined as text). */
export function promptToUserMessage(prompt: readonly AnyContentBlock[]): ConversationMessage {
  const parts: UserPart[] = [];
  for (const b of prompt) {
    const block = b as { type: string; [k: string]: unknown };
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text) });
    else if (block.type === 'image') parts.push({ type: 'image', data: String(block.data), mimeType: String(block.mimeType) });
    else if (block.type === 'resource_link') parts.push({ type: 'text', text: `[file: ${String(block.name)} <${String(block.uri)}>]` });
    else if (block.type === 'resource') {
      const r = block.resource as { uri: string; text?: string; mimeType?: string };
      parts.push({ type: 'text', text: typeof r.text === 'string' ? `<context uri="${r.uri}">\n${r.text}\n</context>` : `[binary resource ${r.uri}]` });
    } else parts.push({ type: 'text', text: `[unsupported ${block.type} content omitted]` });
  }
  return { role: 'user', content: parts };
}

/** The plain text of a prompt (for slash-command detection). */
export function promptText(prompt: readonly AnyContentBlock[]): string {
  return prompt.filter((b) => b.type === 'text').map((b) => String((b as { text: unknown }).text)).join('\n');
}

/** Adds "not executed" results for tool calls that have none, so the history stays valid for providers. */
function closeDangling(history: ConversationMessage[], note: string): void {
  const last = history[history.length - 1];
  if (last?.role !== 'assistant') return;
  const calls = last.content.filter((p): p is Extract<AssistantPart, { type: 'tool_call' }> => p.type === 'tool_call');
  if (calls.length === 0) return;
  history.push({ role: 'tool', results: calls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, output: note, isError: true })) });
}

interface PendingCall {
  call: ModelToolCall;
  acpId: string;
  tool?: Tool;
  input?: unknown;
  inputError?: string;
  title: string;
}

/**
 * Runs one prompt turn: model -> plan/thought/text chunks -> tool calls (pending -> permission ->
 * in_progress -> completed/failed) -> results back to the model, until the model stops calling
 * tools (ACP-V1-PROMPT-03..09, ACP-V2-LIFE-*). Cancellation ends with `cancelled` whatever the
 * model or tool library threw (ACP-V1-CANCEL-06, ACP-V2-CANCEL-06).
 */
export async function runTurn(turn: Turn, opts: EngineOptions): Promise<TurnResult> {
  const { session } = turn;
  const state = codingState(session);
  const v2 = session.client.protocolVersion === 2;
  const maxRequests = opts.maxTurnRequests ?? DEFAULT_MAX_TURN_REQUESTS;
  const sandbox = new Sandbox(session.cwd, session.additionalDirectories);
  const fs = createWorkspaceFs(session, sandbox);
  const terminal = createCommandRunner(session);
  const tools = new Map(opts.tools.map((t) => [t.name, t]));
  const specs: ToolSpec[] = opts.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  if (opts.planTool !== false) specs.push(updatePlanSpec);
  const system = typeof opts.system === 'function' ? opts.system(turn, state) : opts.system;
  const history = state.history;
  const turnStart = history.length;
  history.push(promptToUserMessage(turn.prompt));
  const send = (u: SessionUpdate) => turn.send(u);
  /** final status of a call that did not run to the end because of a cancel */
  const cancelledStatus = v2 ? 'cancelled' : 'failed';

  const cancelled = (): TurnResult => {
    closeDangling(history, 'Cancelled by the user before this tool ran.');
    return 'cancelled';
  };

  for (let requests = 0; ; requests++) {
    if (turn.signal.aborted) return cancelled();
    if (requests >= maxRequests) {
      closeDangling(history, 'Not executed: the turn reached its model request limit.');
      return 'max_turn_requests';
    }

    // ---- one model request ----
    let messageId: string | undefined;
    let thoughtId: string | undefined;
    const parts: AssistantPart[] = [];
    const calls: PendingCall[] = [];
    let finish: ModelFinishReason = 'stop';
    let finishError: string | undefined;
    let usage: { inputTokens: number; outputTokens: number; contextWindow?: number } | undefined;
    const appendText = (type: 'text' | 'reasoning', text: string) => {
      const last = parts[parts.length - 1];
      if (last?.type === type) last.text += text;
      else parts.push({ type, text });
    };
    state.modelRequests++;
    let modelFailure: unknown;
    try {
      for await (const ev of opts.model.stream({
        system, messages: history.slice(), tools: specs, maxOutputTokens: opts.maxOutputTokens, signal: turn.signal,
      })) {
        if (turn.signal.aborted) throw abortError(turn.signal);
        switch (ev.type) {
          case 'text_delta':
            if (!ev.text) break;
            appendText('text', ev.text);
            messageId ??= session.newId('msg');
            await send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: ev.text } });
            break;
          case 'reasoning_delta':
            if (!ev.text) break;
            appendText('reasoning', ev.text);
            thoughtId ??= session.newId('thought');
            await send({ sessionUpdate: 'agent_thought_chunk', messageId: thoughtId, content: { type: 'text', text: ev.text } });
            break;
          case 'plan':
            await send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries: ev.entries } });
            break;
          case 'tool_call': {
            parts.push({ type: 'tool_call', toolCallId: ev.toolCallId, toolName: ev.toolName, input: ev.input });
            const pc = await announceCall(ev);
            if (pc) calls.push(pc);
            break;
          }
          case 'usage':
            usage = ev;
            if (ev.cost) {
              const prev = state.cost;
              state.cost = prev && prev.currency === ev.cost.currency
                ? { amount: prev.amount + ev.cost.amount, currency: prev.currency }
                : { ...ev.cost };
            }
            break;
          case 'finish':
            finish = ev.reason;
            finishError = ev.error;
            break;
        }
      }
    } catch (e) {
      modelFailure = e;
    }
    if (parts.length) history.push({ role: 'assistant', content: parts });
    if (usage) await reportUsage(usage);
    if (modelFailure !== undefined || turn.signal.aborted) {
      if (turn.signal.aborted || isAbortError(modelFailure)) {
        for (const c of calls) await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: cancelledStatus });
        return cancelled();
      }
      finish = 'error';
      finishError = modelFailure instanceof Error ? modelFailure.message : String(modelFailure);
    }

    if (finish === 'refusal' || finish === 'content_filter') {
      for (const c of calls) await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: cancelledStatus });
      // the refused prompt and what followed are not part of the next prompt's context (ACP-V1-STOP-02)
      history.length = turnStart;
      return 'refusal';
    }
    if (finish === 'error') {
      for (const c of calls) await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: 'failed' });
      closeDangling(history, 'Not executed: the model request failed.');
      const message = `Model request failed: ${finishError ?? 'unknown error'}`;
      messageId ??= session.newId('msg');
      await send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: `\n\n⚠️ ${message}` } });
      if (v2) return { stopReason: 'error', error: { code: -32603, message } };
      throw AcpError.internal(message);
    }
    if (finish === 'length') {
      for (const c of calls) await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: 'failed' });
      closeDangling(history, 'Not executed: the response hit the output token limit.');
      return 'max_tokens';
    }
    if (calls.length === 0) return 'end_turn';

    // ---- run the tool calls, in order ----
    const results: ToolResult[] = [];
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i];
      if (turn.signal.aborted) {
        for (const rest of calls.slice(i)) {
          await send({ sessionUpdate: 'tool_call_update', toolCallId: rest.acpId, status: cancelledStatus });
          results.push({ toolCallId: rest.call.toolCallId, toolName: rest.call.toolName, output: 'Cancelled by the user.', isError: true });
        }
        history.push({ role: 'tool', results });
        return 'cancelled';
      }
      const r = await runCall(c);
      results.push({ toolCallId: c.call.toolCallId, toolName: c.call.toolName, output: r.output, isError: r.isError });
      if (r.cancelled) {
        for (const rest of calls.slice(i + 1)) {
          await send({ sessionUpdate: 'tool_call_update', toolCallId: rest.acpId, status: cancelledStatus });
          results.push({ toolCallId: rest.call.toolCallId, toolName: rest.call.toolName, output: 'Cancelled by the user.', isError: true });
        }
        history.push({ role: 'tool', results });
        return 'cancelled';
      }
    }
    history.push({ role: 'tool', results });
  }

  // ---- helpers (closures over the turn) ----

  async function reportUsage(u: { inputTokens: number; outputTokens: number; contextWindow?: number }): Promise<void> {
    const size = u.contextWindow ?? opts.model.contextWindow;
    // ACP-ALL-USAGE-02: no usage_update without a meaningful context-window size
    if (!size) return;
    await send({
      sessionUpdate: 'usage_update',
      used: u.inputTokens + u.outputTokens,
      size,
      ...(state.cost ? { cost: { ...state.cost } } : {}),
    });
  }

  /** Reports a model-requested call immediately as `pending` (ACP-V1-PROMPT-06, ACP-V2-TOOL-01/02/10). */
  async function announceCall(call: ModelToolCall): Promise<PendingCall | null> {
    if (call.toolName === UPDATE_PLAN_TOOL && opts.planTool !== false) {
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
    await send({
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

  async function fail(c: PendingCall, message: string, content?: AnyToolCallContent[]): Promise<{ output: string; isError: true }> {
    await send({
      sessionUpdate: 'tool_call_update',
      toolCallId: c.acpId,
      status: 'failed',
      content: content ?? [textContent(message)],
    });
    return { output: message, isError: true };
  }

  async function runCall(c: PendingCall): Promise<{ output: string; isError?: boolean; cancelled?: boolean }> {
    if (c.call.toolName === UPDATE_PLAN_TOOL && c.acpId === '') {
      try {
        const entries = parsePlan(c.input);
        await send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries } });
        return { output: 'Plan updated.' };
      } catch (e) {
        return { output: (e as Error).message, isError: true };
      }
    }
    if (c.inputError !== undefined || !c.tool) return fail(c, `Invalid tool call: ${c.inputError}`);
    const tool = c.tool;
    const input = c.input;
    const ctx: ToolContext = {
      session,
      toolCallId: c.acpId,
      signal: turn.signal,
      cwd: sandbox.cwd,
      sandbox,
      fs,
      terminal,
      progress: (content) => send({ sessionUpdate: 'tool_call_content_chunk', toolCallId: c.acpId, content }),
      send,
    };
    if (tool.mutates && state.mode === 'read-only') {
      return fail(c, `Refused: the session is in read-only mode, so ${tool.name} is not allowed. Ask the user to switch the mode to "ask" or "auto".`);
    }
    try {
      let preview: AnyToolCallContent[] = [];
      if (tool.preview) {
        preview = await tool.preview(input, ctx);
        if (preview.length) await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, content: preview });
      }
      if (state.mode === 'ask' && tool.needsPermission(input, { session, sandbox })) {
        if (state.alwaysReject.has(tool.name)) {
          return fail(c, `Rejected: the user chose to always reject ${tool.name} in this session.`);
        }
        if (!state.alwaysAllow.has(tool.name)) {
          const outcome = await turn.requestPermission({
            title: `Allow ${c.title}?`,
            subject: {
              type: 'tool_call',
              toolCall: {
                toolCallId: c.acpId, title: c.title, name: tool.name, kind: tool.kind, status: 'pending',
                rawInput: c.call.input, ...(preview.length ? { content: preview } : {}),
              },
            },
            options: [...PERMISSION_OPTIONS],
          });
          if (outcome.outcome === 'cancelled' || turn.signal.aborted) {
            await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: cancelledStatus });
            return { output: 'Cancelled by the user.', isError: true, cancelled: true };
          }
          const optionId = outcome.outcome === 'selected' ? (outcome as { optionId: string }).optionId : undefined;
          // ACP-V2-PERM-06: anything not understood is not approval
          const chosen = PERMISSION_OPTIONS.find((o) => o.optionId === optionId);
          if (chosen?.kind === 'allow_always') state.alwaysAllow.add(tool.name);
          if (chosen?.kind === 'reject_always') state.alwaysReject.add(tool.name);
          if (chosen?.kind !== 'allow_once' && chosen?.kind !== 'allow_always') {
            const why = chosen ? 'The user rejected this tool call.' : `The permission answer was not understood (${JSON.stringify(outcome)}); not running the tool.`;
            return fail(c, why, [...preview, textContent(`✖ ${why}`)]);
          }
        }
      }
      await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: 'in_progress' });
      const out: ToolOutcome = await tool.execute(input, ctx);
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
      if (turn.signal.aborted || isAbortError(e)) {
        await send({ sessionUpdate: 'tool_call_update', toolCallId: c.acpId, status: cancelledStatus, content: [textContent('Cancelled.')] });
        return { output: 'Cancelled by the user.', isError: true, cancelled: true };
      }
      return fail(c, `Error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

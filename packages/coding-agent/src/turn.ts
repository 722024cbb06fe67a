import { type AnyContentBlock, isAbortError } from '@acp-kit/protocol';
import type { Turn, TurnResult } from '@acp-kit/agent';
import type { AssistantPart, ConversationMessage, LanguageModel, ToolResult, ToolSpec, UserPart } from './model.js';
import { modelStep } from './model-step.js';
import { Sandbox } from './sandbox.js';
import { codingState, type CodingSessionState } from './session-state.js';
import { createCommandRunner } from './terminal.js';
import { runCall, settleCalls, updatePlanSpec, type TurnContext, type TurnTokenTally } from './tool-call.js';
import { USAGE_META_KEY, type TurnTokenUsage } from '@acp-kit/protocol/internal';
import type { Tool } from './tool.js';
import { createWorkspaceFs } from './workspace-fs.js';

/** Default cap on model requests per turn (`max_turn_requests`). */
export const DEFAULT_MAX_TURN_REQUESTS = 25;

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
  /**
   * What the model reads as this turn's input instead of the prompt itself, e.g. the messages of
   * an MCP prompt the user ran as a slash command.
   */
  input?: readonly ConversationMessage[];
}

/** Converts a prompt to the model's user message (resources inlined as text). */
export function promptToUserMessage(prompt: readonly AnyContentBlock[]): ConversationMessage {
  const parts: UserPart[] = [];
  for (const b of prompt) {
    const block = b;
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text) });
    else if (block.type === 'image')
      parts.push({ type: 'image', data: String(block.data), mimeType: String(block.mimeType) });
    else if (block.type === 'resource_link')
      parts.push({ type: 'text', text: `[file: ${String(block.name)} <${String(block.uri)}>]` });
    else if (block.type === 'resource') {
      const r = block.resource;
      parts.push({
        type: 'text',
        text:
          'text' in r && typeof r.text === 'string'
            ? `<context uri="${r.uri}">\n${r.text}\n</context>`
            : `[binary resource ${r.uri}]`,
      });
    } else parts.push({ type: 'text', text: `[unsupported ${String(block.type)} content omitted]` });
  }
  return { role: 'user', content: parts };
}

/** The plain text of a prompt (for slash-command detection). */
export function promptText(prompt: readonly AnyContentBlock[]): string {
  return prompt.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])).join('\n');
}

/** Adds "not executed" results for tool calls that have none, so the history stays valid for providers. */
function closeDangling(history: ConversationMessage[], note: string): void {
  const last = history[history.length - 1];
  if (last?.role !== 'assistant') return;
  const calls = last.content.filter((p): p is Extract<AssistantPart, { type: 'tool_call' }> => p.type === 'tool_call');
  if (calls.length === 0) return;
  history.push({
    role: 'tool',
    results: calls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, output: note, isError: true })),
  });
}

/**
 * Runs one prompt turn: model -> plan/thought/text chunks -> tool calls (pending -> permission ->
 * in_progress -> completed/failed) -> results back to the model, until the model stops calling
 * tools (ACP-V1-PROMPT-03..09, ACP-V2-LIFE-*). Cancellation ends with `cancelled` whatever the
 * model or tool library threw (ACP-V1-CANCEL-06, ACP-V2-CANCEL-06).
 */
export async function runTurn(turn: Turn, opts: EngineOptions): Promise<TurnResult> {
  const tokens: TurnTokenTally = { reported: false, inputTokens: 0, outputTokens: 0, sentUsageUpdate: false };
  try {
    return withTurnUsage(await turnLoop(turn, opts, tokens), tokens);
  } finally {
    // tokens spent are reported however the turn ends (cancelled and failed turns cost too)
    if (tokens.reported && !tokens.sentUsageUpdate) await reportTurnTokens(turn, tokens);
  }
}

/**
 * The turn's token counts on its result too (v1 `PromptResponse.usage`, unstable): the same tally
 * the `usage_update` / usage metadata of this turn reports, so the two never disagree.
 */
function withTurnUsage(result: TurnResult, t: TurnTokenTally): TurnResult {
  if (!t.reported) return result;
  const end = typeof result === 'string' ? { stopReason: result } : result;
  const usage = {
    totalTokens: t.inputTokens + t.outputTokens,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
  };
  return { ...end, usage };
}

/**
 * Without a known context window no `usage_update` can be sent (ACP-ALL-USAGE-02): the turn's
 * token counts go out as custom metadata of a `session_info_update` instead (see usage-meta.ts).
 */
async function reportTurnTokens(turn: Turn, t: TurnTokenTally): Promise<void> {
  const usage: TurnTokenUsage = {
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    totalTokens: t.inputTokens + t.outputTokens,
    ...(t.cost ? { cost: { ...t.cost } } : {}),
  };
  await turn.send({ sessionUpdate: 'session_info_update', _meta: { [USAGE_META_KEY]: { ...usage } } });
}

async function turnLoop(turn: Turn, opts: EngineOptions, tokens: TurnTokenTally): Promise<TurnResult> {
  const { session } = turn;
  const state = codingState(session);
  const maxRequests = opts.maxTurnRequests ?? DEFAULT_MAX_TURN_REQUESTS;
  const sandbox = new Sandbox(session.cwd, session.additionalDirectories);
  const specs: ToolSpec[] = opts.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  if (opts.planTool !== false) specs.push(updatePlanSpec);
  const ctx: TurnContext = {
    turn,
    session,
    state,
    model: opts.model,
    specs,
    tools: new Map(opts.tools.map((t) => [t.name, t])),
    planTool: opts.planTool !== false,
    sandbox,
    fs: createWorkspaceFs(session, sandbox),
    terminal: createCommandRunner(session),
    // v1 has no `cancelled` status: its codec reports `failed` (the one place of that mapping)
    cancelledStatus: 'cancelled',
    send: (u) => turn.send(u),
    tokens,
  };
  const system = typeof opts.system === 'function' ? opts.system(turn, state) : opts.system;
  const history = state.history;
  const turnStart = history.length;
  history.push(...(opts.input ?? [promptToUserMessage(turn.prompt)]));

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

    const step = await modelStep(ctx, system, opts.maxOutputTokens);
    const { calls } = step;
    let { finish, finishError } = step;
    if (step.failure !== undefined || turn.signal.aborted) {
      if (turn.signal.aborted || isAbortError(step.failure)) {
        await settleCalls(ctx, calls, ctx.cancelledStatus, 'Cancelled by the user.');
        return cancelled();
      }
      finish = 'error';
      finishError = step.failure instanceof Error ? step.failure.message : String(step.failure);
    }

    if (finish === 'refusal' || finish === 'content_filter') {
      await settleCalls(ctx, calls, ctx.cancelledStatus, 'Refused.');
      // the refused prompt and what followed are not part of the next prompt's context (ACP-V1-STOP-02)
      history.length = turnStart;
      return 'refusal';
    }
    if (finish === 'error') {
      await settleCalls(ctx, calls, 'failed', 'Not executed: the model request failed.');
      closeDangling(history, 'Not executed: the model request failed.');
      const message = `Model request failed: ${finishError ?? 'unknown error'}`;
      await ctx.send({
        sessionUpdate: 'agent_message_chunk',
        messageId: step.messageId ?? session.newId('msg'),
        content: { type: 'text', text: `\n\n⚠️ ${message}` },
      });
      // v1 has no `error` stop: the runtime answers the v1 prompt with this error instead
      return { stopReason: 'error', error: { code: -32603, message } };
    }
    if (finish === 'length') {
      await settleCalls(ctx, calls, 'failed', 'Not executed: the response hit the output token limit.');
      closeDangling(history, 'Not executed: the response hit the output token limit.');
      return 'max_tokens';
    }
    if (calls.length === 0) return 'end_turn';

    // the tool calls, in order; a cancel gives the rest the cancelled status
    const results: ToolResult[] = [];
    for (const [i, c] of calls.entries()) {
      if (turn.signal.aborted) {
        results.push(...(await settleCalls(ctx, calls.slice(i), ctx.cancelledStatus, 'Cancelled by the user.')));
        history.push({ role: 'tool', results });
        return 'cancelled';
      }
      const r = await runCall(ctx, c);
      results.push({ toolCallId: c.call.toolCallId, toolName: c.call.toolName, output: r.output, isError: r.isError });
      if (r.cancelled) {
        results.push(...(await settleCalls(ctx, calls.slice(i + 1), ctx.cancelledStatus, 'Cancelled by the user.')));
        history.push({ role: 'tool', results });
        return 'cancelled';
      }
    }
    history.push({ role: 'tool', results });
  }
}

import type { Cost } from '@acp-kit/protocol';
import { abortError, type AssistantPart, type ModelFinishReason } from './model.js';
import { announceCall, PLAN_ID, type PendingCall, type TurnContext } from './tool-call.js';

/** Not public API. What one model request produced. */
export interface ModelStep {
  /** the assistant message's parts (text, reasoning, tool calls), in order */
  parts: AssistantPart[];
  /** the tool calls, announced to the client as `pending` */
  calls: PendingCall[];
  finish: ModelFinishReason;
  finishError?: string;
  /** what the stream threw (an abort, a provider error), if anything */
  failure?: unknown;
  /** id of the agent message this step streamed, if any */
  messageId?: string;
}

/**
 * One model request: streams thought/message chunks and plans to the client, announces tool
 * calls as they arrive, and reports usage afterwards. Never throws for model failures: they come
 * back in {@link ModelStep.failure}.
 */
export async function modelStep(
  ctx: TurnContext,
  system: string,
  maxOutputTokens: number | undefined,
): Promise<ModelStep> {
  const { turn, session, state, send } = ctx;
  const step: ModelStep = { parts: [], calls: [], finish: 'stop' };
  let thoughtId: string | undefined;
  let usage: { inputTokens: number; outputTokens: number; contextWindow?: number } | undefined;
  const appendText = (type: 'text' | 'reasoning', text: string) => {
    const last = step.parts[step.parts.length - 1];
    if (last?.type === type) last.text += text;
    else step.parts.push({ type, text });
  };
  state.modelRequests++;
  try {
    for await (const ev of ctx.model.stream({
      system,
      messages: state.history.slice(),
      tools: ctx.specs,
      maxOutputTokens,
      signal: turn.signal,
    })) {
      if (turn.signal.aborted) throw abortError(turn.signal);
      switch (ev.type) {
        case 'text_delta':
          if (!ev.text) break;
          appendText('text', ev.text);
          step.messageId ??= session.newId('msg');
          await send({
            sessionUpdate: 'agent_message_chunk',
            messageId: step.messageId,
            content: { type: 'text', text: ev.text },
          });
          break;
        case 'reasoning_delta':
          if (!ev.text) break;
          appendText('reasoning', ev.text);
          thoughtId ??= session.newId('thought');
          await send({
            sessionUpdate: 'agent_thought_chunk',
            messageId: thoughtId,
            content: { type: 'text', text: ev.text },
          });
          break;
        case 'plan':
          await send({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries: ev.entries } });
          break;
        case 'tool_call':
          step.parts.push({ type: 'tool_call', toolCallId: ev.toolCallId, toolName: ev.toolName, input: ev.input });
          step.calls.push(await announceCall(ctx, ev));
          break;
        case 'usage':
          usage = ev;
          if (ev.cost) {
            state.cost = addCost(state.cost, ev.cost);
            ctx.tokens.cost = addCost(ctx.tokens.cost, ev.cost);
          }
          ctx.tokens.reported = true;
          ctx.tokens.inputTokens += ev.inputTokens;
          ctx.tokens.outputTokens += ev.outputTokens;
          break;
        case 'finish':
          step.finish = ev.reason;
          step.finishError = ev.error;
          break;
      }
    }
  } catch (e) {
    step.failure = e;
  }
  if (step.parts.length) state.history.push({ role: 'assistant', content: step.parts });
  if (usage) await reportUsage(ctx, usage);
  return step;
}

async function reportUsage(
  ctx: TurnContext,
  u: { inputTokens: number; outputTokens: number; contextWindow?: number },
): Promise<void> {
  const size = u.contextWindow ?? ctx.model.contextWindow;
  // ACP-ALL-USAGE-02: no usage_update without a meaningful context-window size
  if (!size) return;
  ctx.tokens.sentUsageUpdate = true;
  await ctx.send({
    sessionUpdate: 'usage_update',
    used: u.inputTokens + u.outputTokens,
    size,
    ...(ctx.state.cost ? { cost: { ...ctx.state.cost } } : {}),
  });
}

/** Adds a call's cost; a change of currency starts over (amounts in different units do not add). */
function addCost(prev: Cost | null | undefined, c: Cost): Cost {
  return prev && prev.currency === c.currency
    ? { amount: prev.amount + c.amount, currency: prev.currency }
    : { amount: c.amount, currency: c.currency };
}

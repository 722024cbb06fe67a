import type { Cost, PlanEntry } from '@acp-kit/protocol';

/**
 * The language-model seam of the coding agent. The engine only speaks this interface, so a
 * model can be the offline demo model, an HTTP provider, or a test double of the *model*
 * (never of the engine).
 */

/** A JSON Schema object describing a tool's input. */
export type JsonSchema = { [key: string]: unknown };

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** A part of a user message. */
export type UserPart = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** A tool invocation the model asked for. */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  /** Parsed JSON input (an object for well-behaved models). */
  input: unknown;
}

/** A part of an assistant message. */
export type AssistantPart =
  { type: 'text'; text: string } | { type: 'reasoning'; text: string } | ({ type: 'tool_call' } & ModelToolCall);

/** The result of one tool call, sent back to the model. */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  /** What the model reads. */
  output: string;
  isError?: boolean;
}

/** The neutral conversation the engine keeps per session and replays to the model. */
export type ConversationMessage =
  | { role: 'user'; content: UserPart[] }
  | { role: 'assistant'; content: AssistantPart[] }
  | { role: 'tool'; results: ToolResult[] };

/** Why a model call ended. */
export type ModelFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'error';

/** One event of a streamed model response. */
export type ModelEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  /** A complete plan snapshot (models with a native planning channel, e.g. the demo model). */
  | { type: 'plan'; entries: PlanEntry[] }
  | ({ type: 'tool_call' } & ModelToolCall)
  | {
      type: 'usage';
      inputTokens: number;
      outputTokens: number;
      /** Context window of the model, when known. */
      contextWindow?: number;
      /** Cost of this call (not cumulative), when known. */
      cost?: Cost;
    }
  | { type: 'finish'; reason: ModelFinishReason; error?: string };

/** One model request. */
export interface ModelRequest {
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
  maxOutputTokens?: number;
  /** Aborts the request; the stream then rejects with an abort error (`name === 'AbortError'`). */
  signal: AbortSignal;
}

/** A streaming language model. */
export interface LanguageModel {
  /** Provider-qualified id for display, e.g. `demo` or `openai:gpt-4o-mini`. */
  readonly id: string;
  /** Context window in tokens, when known (enables `usage_update`). */
  readonly contextWindow?: number;
  /**
   * Streams one response. Must stop promptly when `request.signal` aborts, by throwing an
   * abort error from the iterator.
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

/** An `AbortError` like the one `fetch` throws. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  return e;
}

/** Resolves after `ms` (yielding to the event loop even for 0), rejects with an abort error on abort. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

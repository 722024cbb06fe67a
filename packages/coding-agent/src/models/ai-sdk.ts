import {
  jsonSchema,
  streamText,
  tool,
  type LanguageModel as AiLanguageModel,
  type ModelMessage,
  type TextPart,
  type ToolCallPart,
  type ToolSet,
} from 'ai';
import { isAbortError } from '@acp-kit/protocol';
import {
  abortError,
  type ConversationMessage,
  type LanguageModel,
  type ModelEvent,
  type ModelFinishReason,
  type ModelRequest,
  type ToolSpec,
} from '../model.js';

// The AI SDK prints warnings with console.info/warn by default; on a stdio agent stdout is the
// protocol channel, so they are off unless the embedder configured them.
// (the `ai` package declares this global)
if (globalThis.AI_SDK_LOG_WARNINGS === undefined) globalThis.AI_SDK_LOG_WARNINGS = false;

/** Prices in `currency` per million tokens; enables `cost` in `usage_update`. */
export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
  /** default `USD` */
  currency?: string;
}

export interface AiSdkModelOptions {
  /** Provider-qualified id for display, e.g. `openai:gpt-4o-mini`. */
  id: string;
  contextWindow?: number;
  pricing?: ModelPricing;
}

/** Converts the neutral conversation to AI SDK messages. */
export function toModelMessages(messages: readonly ConversationMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({
        role: 'user',
        content: m.content.map((p) =>
          p.type === 'text'
            ? { type: 'text' as const, text: p.text }
            : { type: 'image' as const, image: p.data, mediaType: p.mimeType },
        ),
      });
    } else if (m.role === 'assistant') {
      // reasoning is not replayed: providers need their own signatures for it and it only costs context
      const content: Array<TextPart | ToolCallPart> = [];
      for (const p of m.content) {
        if (p.type === 'text' && p.text) content.push({ type: 'text', text: p.text });
        else if (p.type === 'tool_call')
          content.push({ type: 'tool-call', toolCallId: p.toolCallId, toolName: p.toolName, input: p.input });
      }
      if (content.length) out.push({ role: 'assistant', content });
    } else {
      out.push({
        role: 'tool',
        content: m.results.map((r) => ({
          type: 'tool-result' as const,
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          output: r.isError
            ? { type: 'error-text' as const, value: r.output }
            : { type: 'text' as const, value: r.output },
        })),
      });
    }
  }
  return out;
}

type SchemaInput = Exclude<Parameters<typeof jsonSchema>[0], PromiseLike<unknown> | (() => unknown)>;

/** Tools without `execute`: the SDK reports the calls and the engine runs them (with permission). */
export function toToolSet(specs: readonly ToolSpec[]): ToolSet {
  const set: ToolSet = {};
  // our tools' schemas are plain JSON Schema objects; the SDK's JSONSchema7 type is stricter than our JsonSchema
  for (const s of specs)
    set[s.name] = tool({ description: s.description, inputSchema: jsonSchema<unknown>(s.inputSchema as SchemaInput) });
  return set;
}

function mapFinish(reason: string | undefined, raw: string | undefined): ModelFinishReason {
  if (raw === 'refusal') return 'refusal';
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'error':
      return 'error';
    default:
      return 'stop';
  }
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const status = 'statusCode' in e ? e.statusCode : undefined;
    return typeof status === 'number' ? `HTTP ${status}: ${e.message}` : e.message;
  }
  return typeof e === 'string' ? e : JSON.stringify(e);
}

/** Wraps an AI SDK language model (OpenAI-compatible, Anthropic, ...) as a {@link LanguageModel}. */
export function createAiSdkModel(model: AiLanguageModel, options: AiSdkModelOptions): LanguageModel {
  return {
    id: options.id,
    contextWindow: options.contextWindow,
    stream: (req) => run(req),
  };

  async function* run(req: ModelRequest): AsyncGenerator<ModelEvent> {
    const { signal } = req;
    if (signal.aborted) throw abortError(signal);
    const result = streamText({
      model,
      system: req.system,
      messages: toModelMessages(req.messages),
      tools: req.tools.length ? toToolSet(req.tools) : undefined,
      maxOutputTokens: req.maxOutputTokens,
      abortSignal: signal,
      // the engine decides about retries; a retry would also re-stream text already shown
      maxRetries: 0,
      onError: () => undefined, // errors arrive as `error` parts below; the default logs to the console
    });
    let finish: ModelFinishReason | undefined;
    try {
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'text-delta':
            if (part.text) yield { type: 'text_delta', text: part.text };
            break;
          case 'reasoning-delta':
            if (part.text) yield { type: 'reasoning_delta', text: part.text };
            break;
          case 'tool-call':
            yield { type: 'tool_call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
            break;
          case 'finish-step': {
            const input = part.usage.inputTokens ?? 0;
            const output = part.usage.outputTokens ?? 0;
            const p = options.pricing;
            yield {
              type: 'usage',
              inputTokens: input,
              outputTokens: output,
              ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
              ...(p
                ? {
                    cost: {
                      amount: (input * p.inputPerMillion + output * p.outputPerMillion) / 1e6,
                      currency: p.currency ?? 'USD',
                    },
                  }
                : {}),
            };
            finish = mapFinish(part.finishReason, part.rawFinishReason);
            break;
          }
          case 'abort':
            throw abortError(signal);
          case 'error':
            if (signal.aborted || isAbortError(part.error)) throw abortError(signal);
            yield { type: 'finish', reason: 'error', error: errorText(part.error) };
            return;
          default:
            break;
        }
      }
    } catch (e) {
      if (signal.aborted || isAbortError(e)) throw abortError(signal);
      throw e;
    }
    if (signal.aborted) throw abortError(signal);
    yield { type: 'finish', reason: finish ?? 'stop' };
  }
}

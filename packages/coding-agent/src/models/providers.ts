import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from '../model.js';
import { createAiSdkModel, type ModelPricing } from './ai-sdk.js';

/** Settings shared by the HTTP model providers. */
export interface ProviderModelOptions {
  /** Model name, e.g. `gpt-4o-mini` or `claude-sonnet-4-5`. */
  modelName: string;
  /** API base URL (OpenAI-compatible: required, e.g. `https://api.openai.com/v1`). */
  baseUrl?: string;
  apiKey?: string;
  /** Context window in tokens (default: a small table of well-known models, else unknown). */
  contextWindow?: number;
  pricing?: ModelPricing;
  headers?: Record<string, string>;
  /** For tests and proxies. */
  fetch?: typeof globalThis.fetch;
}

/** Context windows of some well-known models (prefix match); unknown models report no `usage_update`. */
const KNOWN_WINDOWS: ReadonlyArray<[RegExp, number]> = [
  [/^claude-/, 200_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^gpt-5/, 400_000],
  [/^o[134](-|$)/, 200_000],
];

export function knownContextWindow(modelName: string): number | undefined {
  return KNOWN_WINDOWS.find(([re]) => re.test(modelName))?.[1];
}

/** An OpenAI-compatible Chat Completions model (OpenAI, vLLM, Ollama, LM Studio, OpenRouter, ...). */
export function createOpenAICompatibleModel(o: ProviderModelOptions): LanguageModel {
  if (!o.baseUrl)
    throw new Error(
      'the OpenAI-compatible model needs a base URL (--base-url or OPENAI_BASE_URL), e.g. https://api.openai.com/v1',
    );
  const provider = createOpenAICompatible({
    name: 'openai',
    baseURL: o.baseUrl,
    apiKey: o.apiKey,
    headers: o.headers,
    includeUsage: true,
    fetch: o.fetch,
  });
  return createAiSdkModel(provider.chatModel(o.modelName), {
    id: `openai:${o.modelName}`,
    contextWindow: o.contextWindow ?? knownContextWindow(o.modelName),
    pricing: o.pricing,
  });
}

/** An Anthropic Messages API model. */
export function createAnthropicModel(o: ProviderModelOptions): LanguageModel {
  const provider = createAnthropic({
    baseURL: o.baseUrl,
    apiKey: o.apiKey,
    headers: o.headers,
    fetch: o.fetch,
  });
  return createAiSdkModel(provider(o.modelName), {
    id: `anthropic:${o.modelName}`,
    contextWindow: o.contextWindow ?? knownContextWindow(o.modelName),
    pricing: o.pricing,
  });
}

/**
 * `acp-kit/agent/models`: HTTP language models for the built-in coding agent, via the Vercel AI
 * SDK. A separate entry point so agents that only use the demo model (or their own
 * `LanguageModel`) never load the AI SDK.
 */
export {
  createOpenAICompatibleModel,
  createAnthropicModel,
  knownContextWindow,
  type ProviderModelOptions,
} from './providers.js';
export { createAiSdkModel, type AiSdkModelOptions, type ModelPricing } from './ai-sdk.js';

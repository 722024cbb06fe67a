/**
 * `acp-kit agent`: the built-in coding agent on stdio. stdout carries only ACP messages; logs go
 * to stderr. The process ends when stdin closes.
 */
import { InMemorySessionStore, JsonlSessionStore, runAgentOnStdio, stderrLogger } from '@acp-kit/agent';
import {
  createCodingAgent,
  createDemoModel,
  ModelProviders,
  type AgentMode,
  type LanguageModel,
} from '@acp-kit/coding-agent';
import { signalToolProcesses } from '@acp-kit/coding-agent/internal';
import { usageError } from '../errors.js';
import { chooseModel, DEFAULT_MODEL_NAMES } from '../model-choice.js';
import { packageVersion } from '@acp-kit/protocol/internal';

import type { ModelBackend } from '../flags.js';

export type { ModelBackend };

/** Options of {@link runAgentCommand}; omitted values fall back to the environment (see {@link agentCommandOptions}). */
export interface AgentCommandOptions {
  model?: ModelBackend;
  modelName?: string;
  baseUrl?: string;
  apiKey?: string;
  maxTurnRequests?: number;
  maxOutputTokens?: number;
  contextWindow?: number;
  mode?: AgentMode;
  /** Demo model pause per streamed delta (ms). */
  demoDelayMs?: number;
  /** Session store directory; `false` keeps sessions in memory only. Default: `$ACP_KIT_DATA_DIR/sessions` or XDG data dir. */
  sessionDir?: string | false;
  env?: NodeJS.ProcessEnv;
}

/** Flags/env the command understands (for the CLI's help and docs). */
export const agentCommandOptions: ReadonlyArray<{ flag: string; env?: string; description: string }> = [
  {
    flag: '--model <demo|openai|anthropic>',
    env: 'ACP_KIT_MODEL',
    description:
      'model backend (default: the provider whose API key is set, OpenAI first; else demo: offline, rule-based, not an AI)',
  },
  {
    flag: '--model-name <name>',
    env: 'ACP_KIT_MODEL_NAME',
    description: 'model name (default gpt-4o-mini / claude-sonnet-4-5)',
  },
  {
    flag: '--base-url <url>',
    env: 'OPENAI_BASE_URL / ANTHROPIC_BASE_URL',
    description: 'API base URL (default https://api.openai.com/v1 / https://api.anthropic.com/v1)',
  },
  { flag: '(env only)', env: 'OPENAI_API_KEY / ANTHROPIC_API_KEY', description: 'API key' },
  {
    flag: '--max-turn-requests <n>',
    env: 'ACP_KIT_MAX_TURN_REQUESTS',
    description: 'model requests per turn before max_turn_requests (default 25)',
  },
  {
    flag: '--max-output-tokens <n>',
    env: 'ACP_KIT_MAX_OUTPUT_TOKENS',
    description: 'output token cap per model request (max_tokens when hit)',
  },
  {
    flag: '--context-window <n>',
    env: 'ACP_KIT_CONTEXT_WINDOW',
    description: 'context window for usage_update (default: known models only)',
  },
  { flag: '--mode <ask|auto|read-only>', env: 'ACP_KIT_MODE', description: 'initial permission mode (default ask)' },
  { flag: '(env only)', env: 'ACP_KIT_DEMO_DELAY_MS', description: 'demo model pause per streamed word (default 10)' },
];

function positiveInt(name: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 1) throw usageError(`${name} must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
}

function nonNegativeInt(name: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw usageError(`${name} must be a non-negative integer (got ${JSON.stringify(v)})`);
  return n;
}

/**
 * Builds the model the options and environment ask for. The HTTP providers (and with them the AI
 * SDK) are loaded only when asked for, so the demo agent starts fast.
 */
export async function resolveModel(
  opts: AgentCommandOptions,
  env: NodeJS.ProcessEnv = opts.env ?? process.env,
): Promise<LanguageModel> {
  // the same choice `run`/`chat` show in their header (flag, ACP_KIT_MODEL, API key, demo)
  const choice = chooseModel({ model: opts.model, modelName: opts.modelName, baseUrl: opts.baseUrl }, env);
  const backend = choice.backend;
  const contextWindow = opts.contextWindow ?? positiveInt('ACP_KIT_CONTEXT_WINDOW', env.ACP_KIT_CONTEXT_WINDOW);
  const modelName = choice.modelName;
  switch (backend) {
    case 'demo':
      return createDemoModel({
        delayMs: opts.demoDelayMs ?? nonNegativeInt('ACP_KIT_DEMO_DELAY_MS', env.ACP_KIT_DEMO_DELAY_MS),
        contextWindow,
      });
    case 'openai': {
      const { createOpenAICompatibleModel } = await import('@acp-kit/coding-agent/models');
      return createOpenAICompatibleModel({
        modelName: modelName ?? DEFAULT_MODEL_NAMES.openai,
        baseUrl: choice.baseUrl ?? 'https://api.openai.com/v1',
        apiKey: opts.apiKey ?? env.OPENAI_API_KEY,
        contextWindow,
      });
    }
    case 'anthropic': {
      const { createAnthropicModel } = await import('@acp-kit/coding-agent/models');
      return createAnthropicModel({
        modelName: modelName ?? DEFAULT_MODEL_NAMES.anthropic,
        baseUrl: choice.baseUrl,
        apiKey: opts.apiKey ?? env.ANTHROPIC_API_KEY,
        contextWindow,
      });
    }
    default:
      throw usageError(`unknown model backend ${JSON.stringify(backend)}; expected demo, openai or anthropic`);
  }
}

/**
 * The model's providers for unstable `providers/*` and `auth/status`: the one the agent started on
 * (with its base URL and key) is enabled; a client may route either to another endpoint.
 */
function modelProviders(opts: AgentCommandOptions, env: NodeJS.ProcessEnv, model: LanguageModel): ModelProviders {
  const choice = chooseModel({ model: opts.model, modelName: opts.modelName, baseUrl: opts.baseUrl }, env);
  const contextWindow = opts.contextWindow ?? positiveInt('ACP_KIT_CONTEXT_WINDOW', env.ACP_KIT_CONTEXT_WINDOW);
  if (choice.backend === 'demo') return new ModelProviders({ model, contextWindow });
  const providerId = choice.backend;
  const apiKey = opts.apiKey ?? (providerId === 'openai' ? env.OPENAI_API_KEY : env.ANTHROPIC_API_KEY);
  const baseUrl =
    choice.baseUrl ?? (providerId === 'openai' ? 'https://api.openai.com/v1' : 'https://api.anthropic.com/v1');
  return new ModelProviders({
    model,
    contextWindow,
    startedOn: { providerId, route: { baseUrl, modelName: choice.modelName, ...(apiKey ? { apiKey } : {}) } },
  });
}

/**
 * Runs the built-in coding agent on stdin/stdout until stdin closes; resolves with the exit code.
 * Configuration errors are thrown as CLI usage errors before anything is read from stdin.
 */
export async function runAgentCommand(opts: AgentCommandOptions): Promise<number> {
  const env = opts.env ?? process.env;
  const model = await resolveModel(opts, env);
  const given: string | undefined = opts.mode ?? env.ACP_KIT_MODE;
  const mode: AgentMode | undefined = given === 'ask' || given === 'auto' || given === 'read-only' ? given : undefined;
  if (given !== undefined && mode === undefined) {
    throw usageError(`mode must be ask, auto or read-only (got ${JSON.stringify(given)})`);
  }
  const definition = createCodingAgent({
    model,
    providers: modelProviders(opts, env, model),
    mode,
    maxTurnRequests: opts.maxTurnRequests ?? positiveInt('ACP_KIT_MAX_TURN_REQUESTS', env.ACP_KIT_MAX_TURN_REQUESTS),
    maxOutputTokens: opts.maxOutputTokens ?? positiveInt('ACP_KIT_MAX_OUTPUT_TOKENS', env.ACP_KIT_MAX_OUTPUT_TOKENS),
    info: { name: 'acp-kit-agent', version: packageVersion(), title: 'acp-kit coding agent' },
  });
  const logger = stderrLogger('acp-kit agent');
  if (model.id.startsWith('openai:') && !(opts.apiKey ?? env.OPENAI_API_KEY))
    logger.warn('OPENAI_API_KEY is not set (fine for local servers that need no key)');
  if (model.id.startsWith('anthropic:') && !(opts.apiKey ?? env.ANTHROPIC_API_KEY))
    logger.warn('ANTHROPIC_API_KEY is not set; model requests will fail');
  const store =
    opts.sessionDir === false
      ? new InMemorySessionStore()
      : new JsonlSessionStore(opts.sessionDir ? { dir: opts.sessionDir } : {});
  const connection = runAgentOnStdio(definition, { store, logger, exitOnClose: false });
  const stopSignals = onTerminationSignal((signal) => {
    // tool commands run in their own process groups, out of reach of a signal sent to ours
    signalToolProcesses('SIGTERM');
    if (store instanceof JsonlSessionStore) store.close();
    process.kill(process.pid, signal); // handlers are off again: die of the signal, as the parent expects
  });
  try {
    await connection.closed;
  } finally {
    stopSignals();
  }
  if (store instanceof JsonlSessionStore) store.close();
  return 0;
}

/**
 * Calls `stop` once on the first SIGTERM, SIGINT or SIGHUP with every handler already removed;
 * returns the function that removes the handlers.
 */
function onTerminationSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  const handler = (signal: NodeJS.Signals): void => {
    remove();
    stop(signal);
  };
  const remove = (): void => {
    for (const sig of signals) process.off(sig, handler);
  };
  for (const sig of signals) process.on(sig, handler);
  return remove;
}

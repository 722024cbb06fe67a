import { usageError } from './errors.js';
import type { ModelBackend, ModelFlags } from './flags.js';

/** The model the built-in agent should run on, as decided from flags and environment. */
export interface ModelChoice {
  backend: ModelBackend;
  /** Model name (`undefined` for the demo model). */
  modelName?: string;
  /** API base URL, when one was given (flag or environment). */
  baseUrl?: string;
  /** For headers and `--json`: `demo`, `openai:gpt-4o-mini`, ... (the model's own id). */
  label: string;
  /** How the backend was chosen, for messages. */
  source: 'flag' | 'ACP_KIT_MODEL' | 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY' | 'default';
}

const BACKENDS: readonly ModelBackend[] = ['demo', 'openai', 'anthropic'];

/** Whether `v` names a model backend. */
function isModelBackend(v: unknown): v is ModelBackend {
  return BACKENDS.some((b) => b === v);
}
/** Default model names; keep in step with `resolveModel` in commands/agent.ts. */
export const DEFAULT_MODEL_NAMES = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5' } as const;

/**
 * Chooses the built-in agent's model: `--model`, else `$ACP_KIT_MODEL`, else the provider whose
 * API key is set (OpenAI first when both are), else the offline demo model. Pure (no provider
 * code is loaded), so `run` and `chat` can decide and show it before starting the agent, and the
 * agent decides the same way when started on its own.
 */
export function chooseModel(flags: ModelFlags, env: NodeJS.ProcessEnv = process.env): ModelChoice {
  let backend: ModelBackend;
  let source: ModelChoice['source'];
  const fromEnv = env.ACP_KIT_MODEL === '' ? undefined : env.ACP_KIT_MODEL;
  if (flags.model !== undefined) {
    backend = flags.model;
    source = 'flag';
  } else if (fromEnv !== undefined) {
    if (!isModelBackend(fromEnv)) {
      throw usageError(
        `ACP_KIT_MODEL must be demo, openai or anthropic (got ${JSON.stringify(fromEnv)})`,
        'Set ACP_KIT_MODEL to one of them, or unset it.',
      );
    }
    backend = fromEnv;
    source = 'ACP_KIT_MODEL';
  } else if (env.OPENAI_API_KEY) {
    backend = 'openai';
    source = 'OPENAI_API_KEY';
  } else if (env.ANTHROPIC_API_KEY) {
    backend = 'anthropic';
    source = 'ANTHROPIC_API_KEY';
  } else {
    backend = 'demo';
    source = 'default';
  }
  if (backend === 'demo') return { backend, label: 'demo', source };
  const envName = env.ACP_KIT_MODEL_NAME === '' ? undefined : env.ACP_KIT_MODEL_NAME;
  const modelName = flags.modelName ?? envName ?? DEFAULT_MODEL_NAMES[backend];
  const envUrl = backend === 'openai' ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL;
  const baseUrl = flags.baseUrl ?? (envUrl === '' ? undefined : envUrl);
  return {
    backend,
    modelName,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    label: `${backend}:${modelName}`,
    source,
  };
}

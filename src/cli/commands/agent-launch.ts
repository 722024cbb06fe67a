import { runAgentCommand, type ModelBackend } from './agent.js';

/**
 * `acp-kit agent`: delegates to `runAgentCommand` in `./agent.ts` (owned by the built-in agent's
 * author). This module is loaded lazily so that `run`/`chat` never load the model SDKs.
 */
export async function agentCommand(flags: Record<string, unknown>): Promise<number> {
  return runAgentCommand({
    model: flags.model as ModelBackend | undefined,
    modelName: flags.modelName as string | undefined,
    baseUrl: flags.baseUrl as string | undefined,
    maxTurnRequests: flags.maxTurnRequests as number | undefined,
    maxOutputTokens: flags.maxOutputTokens as number | undefined,
    contextWindow: flags.contextWindow as number | undefined,
    mode: flags.mode as 'ask' | 'auto' | 'read-only' | undefined,
  });
}

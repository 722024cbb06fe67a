import { runAgentCommand } from './agent.js';
import type { AgentLaunchFlags } from '../flags.js';

/**
 * `acp-kit agent`: delegates to `runAgentCommand` in `./agent.ts` (owned by the built-in agent's
 * author). This module is loaded lazily so that `run`/`chat` never load the model SDKs.
 */
export async function agentCommand(flags: AgentLaunchFlags): Promise<number> {
  // (the flag parsers already checked these values; their types come from the declarations)
  return runAgentCommand({
    model: flags.model,
    modelName: flags.modelName,
    baseUrl: flags.baseUrl,
    maxTurnRequests: flags.maxTurnRequests,
    maxOutputTokens: flags.maxOutputTokens,
    contextWindow: flags.contextWindow,
    mode: flags.mode,
  });
}

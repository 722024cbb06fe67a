import { runAgentCommand } from './agent.js';
import { isModelBackend } from '../model-choice.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const MODES = ['ask', 'auto', 'read-only'] as const;
const mode = (v: unknown): (typeof MODES)[number] | undefined => MODES.find((m) => m === v);

/**
 * `acp-kit agent`: delegates to `runAgentCommand` in `./agent.ts` (owned by the built-in agent's
 * author). This module is loaded lazily so that `run`/`chat` never load the model SDKs.
 */
export async function agentCommand(flags: Record<string, unknown>): Promise<number> {
  return runAgentCommand({
    // (the flag parsers already checked these values)
    model: isModelBackend(flags.model) ? flags.model : undefined,
    modelName: str(flags.modelName),
    baseUrl: str(flags.baseUrl),
    maxTurnRequests: num(flags.maxTurnRequests),
    maxOutputTokens: num(flags.maxOutputTokens),
    contextWindow: num(flags.contextWindow),
    mode: mode(flags.mode),
  });
}

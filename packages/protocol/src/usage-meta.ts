import type { Cost } from './model/update.js';
import { isObj } from './codec/util.js';

/**
 * The `_meta` key under which the built-in agent reports a turn's token counts. A `usage_update`
 * needs the context-window `size` (ACP-ALL-USAGE-02), so for models whose window is unknown the
 * counts travel as custom session metadata instead: a `session_info_update` whose `_meta` holds
 * only this key, sent once at the end of the turn (both schemas allow an info update with
 * `_meta` alone; v2 patches stored metadata by top-level key).
 */
export const USAGE_META_KEY = 'acp-kit/usage';

/** Token counts of one prompt turn (all model requests of the turn added up). */
export interface TurnTokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** `inputTokens + outputTokens` */
  totalTokens: number;
  /** What the turn cost, when the model's pricing is known. */
  cost?: Cost;
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * Reads {@link TurnTokenUsage} from a `_meta` object (lenient: anything malformed is `undefined`,
 * a malformed `cost` is dropped), e.g. `state.info.meta` of a client session.
 */
export function readTurnTokenUsage(meta: unknown): TurnTokenUsage | undefined {
  if (meta === null || typeof meta !== 'object' || !(USAGE_META_KEY in meta)) return undefined;
  const u: unknown = meta[USAGE_META_KEY];
  if (!isObj(u)) return undefined;
  const { inputTokens, outputTokens, totalTokens, cost } = u;
  if (!count(inputTokens) || !count(outputTokens)) return undefined;
  const out: TurnTokenUsage = {
    inputTokens,
    outputTokens,
    totalTokens: count(totalTokens) ? totalTokens : inputTokens + outputTokens,
  };
  const c = cost;
  if (isObj(c) && typeof c.amount === 'number' && Number.isFinite(c.amount) && typeof c.currency === 'string') {
    out.cost = { amount: c.amount, currency: c.currency };
  }
  return out;
}

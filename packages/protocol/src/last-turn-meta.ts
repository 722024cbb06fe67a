import type { ErrorObject } from './model/update.js';
import { isObj } from './codec/util.js';

/**
 * The `_meta` key of an idle v2 resume snapshot (`state_update`) under which acp-kit serve's
 * cluster says how the session's last turn ended. The snapshot itself says only `idle`: a client
 * whose connection dropped before the end of its turn reached it (a rolling restart in the middle
 * of a turn) learns the real stop reason from it (docs/deploy.md, "A restart in the middle of a turn").
 */
export const LAST_TURN_META_KEY = 'acp-kit/lastTurn';

/** How a turn ended, as its idle `state_update` said. */
export interface LastTurnEnd {
  stopReason: string;
  error?: ErrorObject;
}

/** Reads {@link LastTurnEnd} from a `_meta` object (lenient: anything malformed is `undefined`, a malformed `error` is dropped). */
export function readLastTurnEnd(meta: unknown): LastTurnEnd | undefined {
  if (!isObj(meta)) return undefined;
  const t = meta[LAST_TURN_META_KEY];
  if (!isObj(t) || typeof t.stopReason !== 'string') return undefined;
  const e = t.error;
  const error =
    isObj(e) && typeof e.code === 'number' && typeof e.message === 'string'
      ? { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) }
      : undefined;
  return { stopReason: t.stopReason, ...(error ? { error } : {}) };
}

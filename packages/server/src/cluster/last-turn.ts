import { isObj, LAST_TURN_META_KEY } from '@acp-kit/protocol/internal';
import type { UpdateRow } from './follower.js';

/** How a turn ended, as its idle `state_update` said. */
export interface LastTurn {
  stopReason: string;
  error?: unknown;
}

/** The end of the newest turn among `rows` (any order): its idle `state_update` with a stop reason. */
export function lastTurnOf(rows: readonly UpdateRow[]): LastTurn | undefined {
  let best: { seq: number; turn: LastTurn } | undefined;
  for (const r of rows) {
    const b = r.body;
    if (!r.live || !isObj(b) || b.sessionUpdate !== 'state_update' || b.state !== 'idle') continue;
    if (typeof b.stopReason !== 'string' || (best && best.seq > r.seq)) continue;
    best = {
      seq: r.seq,
      turn: b.error === undefined ? { stopReason: b.stopReason } : { stopReason: b.stopReason, error: b.error },
    };
  }
  return best?.turn;
}

/** A snapshot `update` with the last turn's end in its `_meta` (as it is when no turn ended yet). */
export function withLastTurn(update: Record<string, unknown>, turn: LastTurn | undefined): Record<string, unknown> {
  if (!turn) return update;
  const meta = isObj(update._meta) ? update._meta : {};
  return { ...update, _meta: { ...meta, [LAST_TURN_META_KEY]: turn } };
}

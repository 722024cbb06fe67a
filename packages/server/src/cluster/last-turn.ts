import { isObj } from '@acp-kit/protocol/internal';
import type { UpdateRow } from './follower.js';

/**
 * The `_meta` key of a v2 resume snapshot (`state_update`) that carries how the session's last
 * turn ended. The snapshot itself says only `idle`: a client whose connection dropped before the
 * end of its turn reached it (a rolling restart in the middle of a turn) learns the turn's real
 * stop reason from it instead of guessing (docs/deploy.md, "A restart in the middle of a turn").
 */
export const LAST_TURN_META = 'acp-kit/lastTurn';

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
  return { ...update, _meta: { ...meta, [LAST_TURN_META]: turn } };
}

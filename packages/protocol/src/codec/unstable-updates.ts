/**
 * The unstable `session/update` kinds both versions' `schema.unstable.json` define with the same
 * shape (`subagent_update`, `session_message`, `session_message_chunk`): the neutral shape is the
 * wire shape. The validator checks them against the unstable schema (its fallback for kinds the
 * stable schema lacks); a bad body throws -32602 naming the path (ACP-V2-EXT-04).
 */
import { UNSTABLE_SHARED_UPDATE_KINDS } from '../model/update.js';
import type { WireValidator } from '../validation/types.js';
import { invalidParams, type JsonObject } from './util.js';

/** Whether `kind` is one of the unstable kinds shared by v1 and v2. */
export function isSharedUnstableKind(kind: string): boolean {
  return UNSTABLE_SHARED_UPDATE_KINDS.has(kind);
}

/** Returns the update unchanged or throws -32602 (no check without a validator, as for every kind). */
export function decodeSharedUnstable(w: JsonObject, validator: WireValidator | null): JsonObject {
  const f = validator?.update(w);
  if (f && f !== 'unknown') throw invalidParams('params.update', f);
  return w;
}

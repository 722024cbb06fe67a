/**
 * The unstable `session/update` kinds both versions' `schema.unstable.json` define with the same
 * shape (`subagent_update`, `session_message`, `session_message_chunk`). The runtime validators
 * compile the stable schemas only, so the decoders check what the model relies on here: the
 * required ids and the content shapes (a bad body throws -32602 naming the path, ACP-V2-EXT-04).
 */
import { UNSTABLE_SHARED_UPDATE_KINDS } from '../model/update.js';
import type { ValidationFailure } from '../validation/types.js';
import { invalidParams, isObj, type JsonObject } from './util.js';

/** Whether `kind` is one of the unstable kinds shared by v1 and v2. */
export function isSharedUnstableKind(kind: string): boolean {
  return UNSTABLE_SHARED_UPDATE_KINDS.has(kind);
}

const optionalString = (w: JsonObject, key: string): ValidationFailure | null =>
  w[key] === undefined || w[key] === null || typeof w[key] === 'string'
    ? null
    : { path: key, message: 'must be string,null' };

/** Where an update of a shared unstable kind breaks its schema (paths relative to the update), or null. */
export function sharedUnstableFailure(w: JsonObject, kind: string): ValidationFailure | null {
  return firstFailure(w, kind);
}

function firstFailure(w: JsonObject, kind: string): ValidationFailure | null {
  const id = kind === 'subagent_update' ? 'sessionId' : 'messageId';
  if (typeof w[id] !== 'string') {
    return w[id] === undefined
      ? { path: '', message: `must have required property '${id}'` }
      : { path: id, message: 'must be string' };
  }
  if (kind === 'subagent_update') {
    for (const k of ['title', 'description', 'cwd']) {
      const f = optionalString(w, k);
      if (f) return f;
    }
    const dirs = w.additionalDirectories;
    if (dirs !== undefined && dirs !== null && !(Array.isArray(dirs) && dirs.every((d) => typeof d === 'string')))
      return { path: 'additionalDirectories', message: 'must be array of strings,null' };
    if (w.state !== undefined && w.state !== null && !(isObj(w.state) && typeof w.state.state === 'string'))
      return { path: 'state', message: "must be object with a string 'state',null" };
    return null;
  }
  if (kind === 'session_message_chunk') {
    return isObj(w.content) && typeof w.content.type === 'string'
      ? null
      : { path: 'content', message: "must be a content block (object with a string 'type')" };
  }
  for (const k of ['senderSessionId', 'recipientSessionId', 'senderMessageId', 'recipientMessageId']) {
    const f = optionalString(w, k);
    if (f) return f;
  }
  const c = w.content;
  if (c !== undefined && c !== null && !(Array.isArray(c) && c.every((b) => isObj(b) && typeof b.type === 'string')))
    return { path: 'content', message: 'must be array of content blocks,null' };
  return null;
}

/** Returns the update unchanged (the neutral shape is the wire shape) or throws -32602. */
export function decodeSharedUnstable(w: JsonObject, kind: string): JsonObject {
  const f = firstFailure(w, kind);
  if (f) throw invalidParams('params.update', f);
  return w;
}

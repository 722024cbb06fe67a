import type { Meta } from '../model/json.js';

/**
 * Applies a top-level `_meta` patch (ACP-V2-EXT-06): `undefined` (omitted) keeps the stored
 * value, `null` clears it, an object patches per top-level key (a `null` key removes it, any
 * other value replaces that key whole, no deep merge; `{}` changes nothing).
 * Returns the new value (never mutates `current`).
 */
export function patchMeta(current: Meta | undefined, patch: Meta | null | undefined): Meta | undefined {
  if (patch === undefined) return current;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return undefined;
  const keys = Object.keys(patch);
  if (keys.length === 0) return current;
  const next: Meta = { ...(current ?? {}) };
  for (const k of keys) {
    const v = patch[k];
    if (v === null) delete next[k];
    else next[k] = v;
  }
  return Object.keys(next).length === 0 ? undefined : next;
}

/**
 * A three-state patch of a plain field: `undefined` keeps, `null` clears (to `cleared`),
 * anything else replaces.
 */
export function patchField<T, C>(current: T | C, patch: T | null | undefined, cleared: C): T | C {
  if (patch === undefined) return current;
  if (patch === null) return cleared;
  return patch;
}

import { isObj, type JsonObject } from './codec/util.js';

/**
 * Reading parsed JSON of unknown shape (captures, live lines) without trusting it: every access
 * goes through a check, so a frame of the wrong shape yields `undefined` instead of a crash or a
 * value of the wrong type.
 */
export { isObj, type JsonObject };

/**
 * The value at `keys` below `v` (`at(m, 'result', 'protocolVersion')`), or `undefined` as soon as
 * a step is not a JSON object (arrays, `null` and primitives have no fields here).
 */
export function at(v: unknown, ...keys: string[]): unknown {
  let cur = v;
  for (const k of keys) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** {@link at}, kept only when it is a string. */
export function stringAt(v: unknown, ...keys: string[]): string | undefined {
  const x = at(v, ...keys);
  return typeof x === 'string' ? x : undefined;
}

/** {@link at}, kept only when it is a number. */
export function numberAt(v: unknown, ...keys: string[]): number | undefined {
  const x = at(v, ...keys);
  return typeof x === 'number' ? x : undefined;
}

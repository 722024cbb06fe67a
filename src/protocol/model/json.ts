/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: unknown };

/**
 * The `_meta` extension bag (ACP-ALL-EXT-01/02). On upsert updates a top-level `_meta`
 * is a patch (ACP-V2-EXT-06): omitted = unchanged, `null` = clear, object = per-key patch.
 */
export type Meta = { [key: string]: unknown };

/**
 * A three-state patch field (ACP-V2-EXT-07): `undefined` (omitted) = unchanged,
 * `null` = clear, a value = replace.
 */
export type Patch<T> = T | null | undefined;

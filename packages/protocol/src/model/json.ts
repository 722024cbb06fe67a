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

/**
 * The discriminant type of an unknown union member: an update kind, content type, outcome, ...
 * that this version of acp-kit does not know (a `_` extension, or a kind of a newer protocol).
 *
 * It is typed as an extension name (`_...`) on purpose: then no known value matches it, so
 * comparing a discriminant with a known value (`u.sessionUpdate === 'agent_message_chunk'`,
 * `b.type === 'text'`, a `switch` case) narrows to that known member, while the `else`/`default`
 * branch keeps the unknown member, and comparing with an extension name (`'_zed/foo'`) still
 * compiles. A kind of a newer protocol version (no leading `_`) arrives as this member too:
 * use the `isUnknown...` guards rather than relying on the leading `_` at run time.
 */
export type UnknownKind = `_${string}`;

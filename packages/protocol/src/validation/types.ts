/**
 * Where a value failed its schema: a readable JSON path such as `update.content[0].type`
 * (relative to the checked value, under the optional `at` prefix the caller passed, e.g.
 * `params.update.content[0].type` with `at = 'params'`), and what was expected there.
 */
export interface ValidationFailure {
  /** Dotted keys and `[i]` indices; `''` (or just `at`) when the value itself is wrong. */
  path: string;
  /** What was expected there, e.g. `must be string` or `must have required property 'toolCallId'`. */
  message: string;
}

/** Which side handles the method (the schema's `x-side`): `agent` = sent by the client. */
export type Side = 'agent' | 'client';

/**
 * Which form of a method a message is. It matters for the few methods that are both, with their
 * own side and params each (unstable `mcp/message`: requests to the client, notifications to the
 * agent); when omitted, the request's form.
 */
export type MethodKind = 'request' | 'notification';

/**
 * Runtime validation of wire messages of one protocol version against the official ACP schema.
 * Every check returns `null` when valid. Methods the schema does not know return `null`
 * (lenient: `_` extensions, newer methods). `at` prefixes the failure path (default `''`).
 */
export interface WireValidator {
  readonly version: 1 | 2;
  /** Params of a request or notification, as received by `side`. */
  params(method: string, value: unknown, at?: string, kind?: MethodKind): ValidationFailure | null;
  /** Result of a request. */
  result(method: string, value: unknown, at?: string): ValidationFailure | null;
  /**
   * The `update` of a `session/update`, dispatched on its `sessionUpdate` discriminator.
   * Returns `'unknown'` for a discriminator the schema does not define (kept, never rejected).
   */
  update(value: unknown, at?: string): ValidationFailure | null | 'unknown';
  /** Any `$defs` entry by name (e.g. `ContentBlock`); throws for a name the schema lacks. */
  def(name: string, value: unknown, at?: string): ValidationFailure | null;
  /** Whether the schema defines `method` (request or notification). */
  knows(method: string): boolean;
  /**
   * The side that handles `method` (`protocol` for `$/cancel_request` and for the proxy-chain
   * methods, which neither the client nor the agent handles), or undefined if unknown.
   */
  sideOf(method: string, kind?: MethodKind): Side | 'protocol' | undefined;
}

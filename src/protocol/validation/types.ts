/** Where a value failed its schema: a JSON path such as `params.update.content[0].type`. */
export interface ValidationFailure {
  path: string;
  /** What was expected there, e.g. `must be string` or `must have required property 'toolCallId'`. */
  message: string;
}

/** Which side handles the method (the schema's `x-side`): `agent` = sent by the client. */
export type Side = 'agent' | 'client';

/**
 * Runtime validation of wire messages of one protocol version against the official ACP schema.
 * Every check returns `null` when valid. Methods the schema does not know return `null`
 * (lenient: `_` extensions, newer methods).
 */
export interface WireValidator {
  readonly version: 1 | 2;
  /** Params of a request or notification, as received by `side`. */
  params(method: string, value: unknown): ValidationFailure | null;
  /** Result of a request. */
  result(method: string, value: unknown): ValidationFailure | null;
  /**
   * The `update` of a `session/update`, dispatched on its `sessionUpdate` discriminator.
   * Returns `'unknown'` for a discriminator the schema does not define (kept, never rejected).
   */
  update(value: unknown): ValidationFailure | null | 'unknown';
}

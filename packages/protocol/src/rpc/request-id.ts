/**
 * Request ids as they travel (ACP-ALL-RPC-03: a response carries its request's id exactly). One id
 * type for every transport and relay, and one key function for every map of ids: ids are keyed by
 * value, never with `JSON.stringify` (which throws on a `bigint` and rounds big numbers).
 */
import type { RequestId } from '../jsonrpc.js';

/**
 * A numeric id whose JSON text `JSON.parse` cannot keep: more digits than a double holds (`0.1000000000000000055`),
 * an exponent (`1e400`, `1e2`), `-0`, trailing zeros. Kept as the sender's text and written back
 * byte for byte. Integers beyond 2^53 written as plain digits are `bigint`s instead.
 */
export class ExactNumberId {
  constructor(
    /** The id's JSON text, as received. */
    readonly text: string,
  ) {}
  toString(): string {
    return this.text;
  }
}

/**
 * A request id as acp-kit carries it: a string, a number, `null`, a `bigint` for an integer beyond
 * 2^53, or an {@link ExactNumberId} for any other number JSON would not write back as sent.
 */
export type WireRequestId = RequestId | bigint | ExactNumberId | null;

/** True for an id a request may carry (anything else is answered -32600 with id `null`). */
export function isWireRequestId(id: unknown): id is WireRequestId {
  return (
    id === null ||
    typeof id === 'string' ||
    typeof id === 'bigint' ||
    id instanceof ExactNumberId ||
    (typeof id === 'number' && Number.isFinite(id))
  );
}

/**
 * The map key of an id: equal for equal ids, distinct for a number and the string of its digits,
 * and never a throw (objects, cycles and `undefined` included, for relays that key what they got).
 */
export function requestIdKey(id: unknown): string {
  switch (typeof id) {
    case 'string':
      return JSON.stringify(id);
    case 'number':
    case 'bigint':
      return String(id);
    case 'undefined':
      return 'undefined';
    default:
      if (id === null) return 'null';
      if (id instanceof ExactNumberId) return id.text;
      try {
        return `?${JSON.stringify(id)}`;
      } catch {
        return `?${String(id)}`;
      }
  }
}

/** An id for messages and logs: its JSON text (a `bigint`'s digits, an {@link ExactNumberId}'s own text). */
export function showRequestId(id: unknown): string {
  if (typeof id === 'bigint' || id instanceof ExactNumberId) return id.toString();
  return requestIdKey(id);
}

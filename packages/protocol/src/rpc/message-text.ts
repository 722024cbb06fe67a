import { MAX_JSON_DEPTH, mayHaveUnsafeId, nestedDeeperThan, restoreExactIds, stringifyMessage } from './json-guard.js';
import type { TransportHandlers } from './transport.js';

/**
 * Parses one framed message (a WebSocket text frame, an SSE `data` field, a POST body) with the
 * same guards as the stdio transport: exact ids beyond 2^53, a depth limit checked before any
 * recursion. Delivers the result to `handlers`; never throws.
 */
export function deliverMessageText(
  text: string,
  handlers: TransportHandlers | undefined,
  maxDepth: number = MAX_JSON_DEPTH,
): void {
  const tooDeep = nestedDeeperThan(text, maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    handlers?.onInvalidLine({
      line: text.length > 200 ? text.slice(0, 200) + '…' : text,
      error: e instanceof Error ? e : new Error(String(e)),
    });
    return;
  }
  if (mayHaveUnsafeId(value, text)) value = restoreExactIds(value, text);
  if (tooDeep) {
    if (handlers?.onTooDeep) handlers.onTooDeep(value, maxDepth);
    else
      handlers?.onInvalidLine({
        line: text.slice(0, 200) + '…',
        error: new Error(`message nested deeper than ${maxDepth} levels`),
      });
    return;
  }
  handlers?.onMessage(value);
}

/** `JSON.stringify`, keeping exact ids (`bigint`, `ExactNumberId`) as sent; throws for anything else unserializable. */
export function messageToText(message: object): string {
  return stringifyMessage(message);
}

/**
 * Parses one message text (a POST body) the way the transports do, with exact ids; throws
 * `JSON.parse`'s error for text that is not JSON.
 */
export function parseMessageText(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return mayHaveUnsafeId(value, text) ? restoreExactIds(value, text) : value;
}

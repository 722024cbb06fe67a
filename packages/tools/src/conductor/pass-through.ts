// The pass-through lane: notifications a hop only routes, forwarded as text without the peer.
import { ProxyMethods } from '@acp-kit/protocol';
import { isPlainNotificationLine, RawJson, RawMessage, readRawSuccessor } from '@acp-kit/protocol/rpc';

/** A notification as the envelope scanner read it, its params (if any) still text. */
export interface PassNotification {
  readonly method: string;
  readonly params?: RawJson;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * `m` (a message the stdio transport's envelope scanner read) when it is a notification the peer
 * would hand to a handler as it is: `"jsonrpc": "2.0"`, a string method, no id, params absent or
 * an object/array left as text. Anything else (requests, responses, odd envelopes) is for the peer,
 * which answers or reports it.
 */
export function passNotification(m: Record<string, unknown>): PassNotification | undefined {
  const { method, params } = m;
  if (typeof method !== 'string' || m.jsonrpc !== '2.0' || hasOwn.call(m, 'id')) return undefined;
  if (params === undefined) return { method };
  return params instanceof RawJson ? { method, params } : undefined;
}

/**
 * The `{ method, params }` a `proxy/successor` notification carries, when its envelope is that plain
 * shape (see `readRawSuccessor`); undefined for anything the full check must read.
 */
export function unwrapSuccessor(n: PassNotification): PassNotification | undefined {
  if (n.method !== ProxyMethods.successor || !n.params) return undefined;
  return readRawSuccessor(n.params);
}

/**
 * The line the peer would write for `notify(method, params)`: the same members in the same order,
 * the params' text spliced in as received. `received`, the line `n` was read from, is that line
 * already when it has exactly that text (as the SDKs and acp-kit write it): then it goes as it is.
 */
export function notificationLine(n: PassNotification, received?: string): RawMessage {
  if (received !== undefined && n.params && isPlainNotificationLine(received, n.method, n.params.text))
    return new RawMessage(received);
  const head = '{"jsonrpc":"2.0","method":' + JSON.stringify(n.method);
  return new RawMessage(n.params ? head + ',"params":' + n.params.text + '}' : head + '}');
}

const SUCCESSOR_HEAD = '{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":';

/** The line the peer would write for `notify('proxy/successor', { method, params })`. */
export function successorLine(n: PassNotification): RawMessage {
  const head = SUCCESSOR_HEAD + JSON.stringify(n.method);
  return new RawMessage(n.params ? head + ',"params":' + n.params.text + '}}' : head + '}}');
}

/** The message object the peer would send for `notify(method, params)`, for a link that takes objects (in process). */
export function notificationMessage(n: PassNotification): object {
  return n.params ? { jsonrpc: '2.0', method: n.method, params: n.params } : { jsonrpc: '2.0', method: n.method };
}

/** The message object the peer would send for `notify('proxy/successor', { method, params })`. */
export function successorMessage(n: PassNotification): object {
  const inner = n.params ? { method: n.method, params: n.params } : { method: n.method };
  return { jsonrpc: '2.0', method: ProxyMethods.successor, params: inner };
}

import { AcpError } from '../errors.js';
import type { Meta } from '../model/json.js';
import type { InitializeRequest, InitializeResponse } from '../model/methods.js';
import { formatFailure } from '../validation/failure.js';
import { getUnstableValidator } from '../validation/validator.js';

/**
 * The proxy-chain methods of the Proxy Chains RFD (agentclientprotocol.com/rfds/proxy-chains),
 * carried by the unstable 2.4.0 schemas of both versions (`x-side: proxy`). They are no neutral
 * client/agent method: a conductor and its proxy components speak them, and their wire names
 * are the same in v1 and v2, so they live beside the codecs' method table rather than in it.
 */
export const ProxyMethods = {
  /** conductor -> component with a successor, instead of `initialize` (same params and answer) */
  initialize: 'proxy/initialize',
  /** both directions: a proxy forwards to its successor; the conductor delivers from the successor */
  successor: 'proxy/successor',
} as const;
export type ProxyMethod = (typeof ProxyMethods)[keyof typeof ProxyMethods];

/** `proxy/initialize` params: an `initialize` request's (RFD "Proxy initialization protocol"). */
export type InitializeProxyRequest = InitializeRequest;
/** `proxy/initialize` answer: an `initialize` answer, with the chain's capabilities from the proxy on. */
export type InitializeProxyResponse = InitializeResponse;

/**
 * The `proxy/successor` envelope (request or notification, RFD "Message reference"): the wrapped
 * message's method and params, flattened. `_meta` is the envelope's own, hop-local metadata: the
 * wrapped message's `_meta` stays inside `params`.
 */
export interface ProxySuccessorParams {
  method: string;
  /** omitted and `null` mean the wrapped message has none; else a JSON object or array */
  params?: { [key: string]: unknown } | unknown[] | null;
  _meta?: Meta | null;
}

/** The `$defs` entry of a proxy-chain message's params in `schema.unstable.json`. */
function paramsDef(method: ProxyMethod, kind: 'request' | 'notification'): string {
  if (method === ProxyMethods.initialize) return 'InitializeProxyRequest';
  return kind === 'request' ? 'ProxySuccessorRequest' : 'ProxySuccessorNotification';
}

/**
 * Checks the params of a proxy-chain message against `schema.unstable.json` of `version`
 * (`InitializeProxyRequest`, `ProxySuccessorRequest` or `...Notification`); throws -32602 naming
 * the field. The schema leaves the wrapped `params` untyped and says in words that it MUST be an
 * object or an array (as JSON-RPC requires): that rule is checked here too.
 */
export function checkProxyParams(
  version: 1 | 2,
  method: ProxyMethod,
  kind: 'request' | 'notification',
  params: unknown,
): void {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw AcpError.invalidParams(`${method}: params: must be object`, { path: 'params' });
  }
  const failure = getUnstableValidator(version).def(paramsDef(method, kind), params, 'params');
  if (failure) {
    throw AcpError.invalidParams(`${method}: ${formatFailure('', failure)}`, { path: failure.path });
  }
  const inner: unknown = 'params' in params ? params.params : undefined;
  if (method === ProxyMethods.successor && inner !== undefined && inner !== null && typeof inner !== 'object') {
    throw AcpError.invalidParams(`${method}: params.params: must be an object or an array (JSON-RPC params)`, {
      path: 'params.params',
    });
  }
}

/**
 * The envelope of a `proxy/successor` message, checked ({@link checkProxyParams}) and typed: the
 * wrapped method, its params (`undefined` when none) and the envelope's own `_meta`.
 */
export function readProxySuccessor(
  version: 1 | 2,
  kind: 'request' | 'notification',
  params: unknown,
): ProxySuccessorParams {
  checkProxyParams(version, ProxyMethods.successor, kind, params);
  const method: unknown = isRecord(params) ? params.method : undefined;
  const inner: unknown = isRecord(params) ? params.params : undefined;
  const meta: unknown = isRecord(params) ? params._meta : undefined;
  if (typeof method !== 'string') throw AcpError.invalidParams('proxy/successor: params.method: must be string');
  const out: ProxySuccessorParams = { method };
  if (Array.isArray(inner) || isRecord(inner)) out.params = inner;
  if (isRecord(meta)) out._meta = meta;
  return out;
}

function isRecord(v: unknown): v is { [key: string]: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// The `proxy/successor` envelope as the conductor and its components read it.
import { readProxySuccessor } from '@acp-kit/protocol';
import { plainJson, RawJson, readRawSuccessor } from '@acp-kit/protocol/rpc';

/**
 * A `proxy/successor` envelope: read from its text when it is plain `{ method, params }` (the
 * wrapped params stay text), taken as it is when it is that plain shape as an object (an in-process
 * hop's), else parsed and checked in full.
 */
export function readSuccessor(
  version: 1 | 2,
  kind: 'request' | 'notification',
  params: unknown,
): { method: string; params?: unknown } {
  if (params instanceof RawJson) return readRawSuccessor(params) || readProxySuccessor(version, kind, params.value);
  return plainEnvelope(params) ?? readProxySuccessor(version, kind, plainJson(params));
}

/**
 * `params` when it is `{ method: string }` or `{ method: string, params: object | array }` and nothing
 * else: what the schema check would accept as it is (`ProxySuccessorRequest` / `...Notification`: a
 * string method, params an object or an array), without running the validator for every message an
 * in-process component sends. Anything else (`_meta`, null or scalar params, extra members) gets the
 * full check and its error.
 */
function plainEnvelope(params: unknown): { method: string; params?: unknown } | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  let members = 0;
  for (const key in params) {
    if (key !== 'method' && key !== 'params') return undefined;
    members++;
  }
  if (!('method' in params) || typeof params.method !== 'string') return undefined;
  const method = params.method;
  if (members === 1) return { method };
  const inner: unknown = 'params' in params ? params.params : undefined;
  return typeof inner === 'object' && inner !== null ? { method, params: inner } : undefined;
}

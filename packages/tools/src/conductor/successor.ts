// The `proxy/successor` envelope as the conductor and its components read it.
import { readProxySuccessor } from '@acp-kit/protocol';
import { plainJson, RawJson, readRawSuccessor } from '@acp-kit/protocol/rpc';

/**
 * A `proxy/successor` envelope: read from its text when it is plain `{ method, params }` (the
 * wrapped params stay text), else parsed and checked in full.
 */
export function readSuccessor(
  version: 1 | 2,
  kind: 'request' | 'notification',
  params: unknown,
): { method: string; params?: unknown } {
  return (
    (params instanceof RawJson && readRawSuccessor(params)) || readProxySuccessor(version, kind, plainJson(params))
  );
}

import { negotiateVersion } from '@acp-kit/protocol';

/**
 * The chain's protocol version, chosen when the editor's `initialize` passes the conductor: the
 * editor's requested version, unless the conductor supports only a lower one (schema.unstable.json
 * `InitializeProxyRequest`: "the params carry the protocol version the conductor selected"). The
 * params go on with that version; a version the conductor cannot speak at all is -32022 to the editor.
 */
export function negotiateChainVersion(params: unknown): { version: 1 | 2; params: unknown } {
  const requested: unknown =
    typeof params === 'object' && params !== null && 'protocolVersion' in params ? params.protocolVersion : undefined;
  const version = negotiateVersion(requested) === 2 ? 2 : 1;
  if (requested === version || typeof params !== 'object' || params === null) return { version, params };
  return { version, params: { ...params, protocolVersion: version } };
}

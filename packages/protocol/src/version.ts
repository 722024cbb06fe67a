import { AcpError } from './errors.js';

/** The protocol versions acp-kit speaks. */
export type ProtocolVersion = 1 | 2;
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = [1, 2];
export const LATEST_VERSION: ProtocolVersion = 2;

/**
 * The agent side of negotiation (ACP-ALL-INIT-03, ACP-V2-INIT-05): the requested version when
 * supported, else the newest supported version below it, else -32022 with the supported list.
 * A request above every supported version gets the newest one.
 */
export function negotiateVersion(requested: unknown, supported: readonly number[] = SUPPORTED_VERSIONS): number {
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested < 0 || requested > 65535) {
    throw AcpError.invalidParams(
      `params.protocolVersion must be an integer from 0 to 65535 (got ${JSON.stringify(requested)})`,
      {
        path: 'params.protocolVersion',
      },
    );
  }
  let best = -1;
  for (const v of supported) if (v <= requested && v > best) best = v;
  if (best < 0) throw AcpError.unsupportedVersion(requested, [...supported]);
  return best;
}

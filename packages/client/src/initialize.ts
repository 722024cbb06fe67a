import { type WireCodec, AcpError, ErrorCode, type ClientCapabilities, type Implementation } from '@acp-kit/protocol';
import type { ProtocolChoice } from './options.js';
import { isObj } from '@acp-kit/protocol/internal';

/** The agent answered a protocol version this client cannot speak (ACP-ALL-INIT-04). */
export class UnsupportedProtocolVersionError extends AcpError {
  constructor(
    readonly answered: unknown,
    readonly speakable: readonly number[],
  ) {
    super(
      ErrorCode.UnsupportedVersion,
      `The agent answered initialize with protocolVersion ${JSON.stringify(answered)}, but this client speaks ${speakable.join(' or ')}; disconnected`,
      { requested: speakable[speakable.length - 1], supported: speakable, answered },
    );
    this.name = 'UnsupportedProtocolVersionError';
  }
}

/**
 * Builds the `initialize` params.
 *
 * `auto` asks for v2 and carries both field sets: v2 `info`/`capabilities` and v1
 * `clientInfo`/`clientCapabilities` (ACP-ALL-INIT-02). Neither schema forbids additional
 * properties, so a v2 agent ignores the v1 fields and a v1 agent ignores the v2 ones and answers
 * 1. (The official SDK's router, configured with v1 only, rebuilds v1 params *from the v2
 * fields* and so loses `fs`/`terminal`: use `protocol: 1` to offer those to such an agent.)
 */
export function buildInitializeParams(
  choice: ProtocolChoice,
  codecFor: (v: 1 | 2) => WireCodec,
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
): Record<string, unknown> {
  // (an encoded `initialize` is always an object)
  const fields = (wire: unknown): Record<string, unknown> => (isObj(wire) ? wire : {});
  const v1 = () =>
    fields(
      codecFor(1).encodeParams('initialize', { protocolVersion: 1, clientInfo, clientCapabilities: capabilities }),
    );
  const v2 = () => {
    // fs/terminal do not exist in v2 (ACP-V2-CAP-05)
    const { fs: _fs, terminal: _terminal, ...rest } = capabilities;
    return fields(codecFor(2).encodeParams('initialize', { protocolVersion: 2, clientInfo, clientCapabilities: rest }));
  };
  if (choice === 1) return { ...v1(), protocolVersion: 1 };
  if (choice === 2) return { ...v2(), protocolVersion: 2 };
  return { ...v1(), ...v2(), protocolVersion: 2 };
}

/** The versions acceptable as an answer to a request built for `choice`. */
export function acceptableVersions(choice: ProtocolChoice): Array<1 | 2> {
  return choice === 'auto' ? [1, 2] : [choice];
}

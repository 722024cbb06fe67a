import { getValidator } from '../validation/validator.js';
import { SUPPORTED_VERSIONS } from '../version.js';
import type { WireCodec } from './types.js';
import { V1Codec } from './v1.js';
import { V2Codec } from './v2.js';

export type { UpdateDecoder, UpdateEncoder, UpdateEncoderOptions, WireCodec } from './types.js';
export { V1Codec, toV1StopReason, promptErrorForV1 } from './v1.js';
export { V2Codec, UNKNOWN_IMPLEMENTATION } from './v2.js';
export { V1UpdateDecoder, V1UpdateEncoder, V1_UPDATE_KINDS, messageDelta } from './v1-updates.js';
export { V2UpdateDecoder, V2UpdateEncoder, V2_UPDATE_KINDS } from './v2-updates.js';
export { textDiffToGitPatch, quoteGitPath } from './git-patch.js';
export { V1_ONLY_METHODS, V2_ONLY_METHODS, agentMethodSupported } from './method-names.js';

/** The ACP v1 codec (validates input against the official v1 schema). */
export const v1Codec: WireCodec = new V1Codec(getValidator(1));
/** The ACP v2 codec (validates input against the official v2 schema). */
export const v2Codec: WireCodec = new V2Codec(getValidator(2));

/** The codec of a negotiated protocol version. */
export function codecFor(version: 1 | 2): WireCodec {
  if (version === 1) return v1Codec;
  if (version === 2) return v2Codec;
  // naming the supported versions also keeps version.js in the chunk every codec user loads (start-up)
  throw new RangeError(
    `no ACP codec for protocol version ${String(version)} (supported: ${SUPPORTED_VERSIONS.join(', ')})`,
  );
}
export {
  ProxyMethods,
  checkProxyParams,
  readProxySuccessor,
  type ProxyMethod,
  type ProxySuccessorParams,
  type InitializeProxyRequest,
  type InitializeProxyResponse,
} from './proxy-chain.js';

import type { AnySessionUpdate, SessionUpdate } from '../model/update.js';
import type { ClientCapabilities } from '../model/session.js';

/**
 * Agent side, one per session and connection: neutral updates -> wire `update` payloads.
 * Stateful because v1 needs history (first sighting of a tool call is `tool_call`, plans are
 * merged into v1's single plan, chunks re-send whole tool content lists).
 */
export interface UpdateEncoder {
  /** Zero or more wire `update` objects (the `params.update` of `session/update`). */
  encode(update: SessionUpdate): object[];
}

/**
 * Client side, one per session and connection: wire `update` payloads -> neutral updates.
 * Validates; throws an `AcpError` (-32602, naming the JSON path) for a known kind with a bad
 * body; unknown kinds come back as `UnknownUpdate`s (both versions: lenient on input).
 */
export interface UpdateDecoder {
  decode(wireUpdate: unknown): AnySessionUpdate[];
}

/**
 * One protocol version's wire codec: maps the neutral model (protocol/model) to and from the
 * wire. `decode*` validate what arrives (throwing -32602 `AcpError`s that name the JSON path);
 * `encode*` build wire shapes (validated only when `validateOutgoing` is on).
 */
export interface WireCodec {
  readonly version: 1 | 2;
  /** The wire method name for a neutral one; `undefined` when this version has no such method. */
  wireMethod(neutral: string): string | undefined;
  /** The neutral method name for a wire one (unknown/extension methods map to themselves). */
  neutralMethod(wire: string): string;
  encodeParams(method: string, params: unknown): unknown;
  decodeParams(method: string, wire: unknown): unknown;
  encodeResult(method: string, result: unknown): unknown;
  decodeResult(method: string, wire: unknown): unknown;
  createUpdateEncoder(options?: { clientCapabilities?: ClientCapabilities }): UpdateEncoder;
  createUpdateDecoder(): UpdateDecoder;
}

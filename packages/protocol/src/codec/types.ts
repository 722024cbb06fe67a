import type { AnySessionUpdate } from '../model/update.js';
import type { ClientCapabilities, ConfigOption } from '../model/session.js';
import type { NeutralMethod, ParamsOf, RequestMethod, ResultOf } from '../model/methods.js';

/**
 * Agent side, one per session and connection: neutral updates -> wire `update` payloads.
 * Stateful because v1 needs history (first sighting of a tool call is `tool_call`, plans are
 * merged into v1's single plan, chunks re-send whole tool content lists).
 */
export interface UpdateEncoder {
  /**
   * Zero or more wire `update` objects (the `params.update` of `session/update`). An unknown kind
   * passes through on v2 (ACP-V2-EXT-03) and is left out on v1, whose update union is closed.
   */
  encode(update: AnySessionUpdate): object[];
}

/**
 * Client side, one per session and connection: wire `update` payloads -> neutral updates.
 * Validates; throws an `AcpError` (-32602, naming the JSON path) for a known kind with a bad
 * body; unknown kinds come back as `UnknownUpdate`s (both versions: lenient on input).
 */
export interface UpdateDecoder {
  decode(wireUpdate: unknown): AnySessionUpdate[];
  /**
   * The client is starting a prompt turn. Decoders that group id-less chunks (v1) start a new
   * message with the next chunk; others need not implement it.
   */
  startTurn?(): void;
}

/** What an update encoder needs to know about the session and its client. */
export interface UpdateEncoderOptions {
  /**
   * The client's capabilities from `initialize` (v1: gates `notice`, `compaction_*` and boolean
   * config options, ACP-V1-NOTICE-01, ACP-V1-COMPACT-01, ACP-V1-CFG-01). Omitted = none advertised.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * The config options the client was last given outside updates (e.g. the `session/new`
   * result). v2 uses them to turn a neutral `current_mode_update` into a `config_option_update`.
   */
  configOptions?: readonly ConfigOption[];
}

/**
 * One protocol version's wire codec: maps the neutral model (protocol/model) to and from the
 * wire. `method` is always the neutral method name (see `Methods`). `decode*` validate what
 * arrives against the official schema (throwing -32602 `AcpError`s that name the JSON path) and
 * fill neutral defaults; `encode*` build wire shapes without validating them.
 */
export interface WireCodec {
  readonly version: 1 | 2;
  /** The wire method name for a neutral one; `undefined` when this version has no such method. */
  wireMethod(neutral: string): string | undefined;
  /**
   * The neutral method name for a wire one. Unknown/extension methods map to themselves; a wire
   * name that belongs to the *other* version only (e.g. `authenticate` on v2) is prefixed
   * (`v1:authenticate`) so that no neutral handler picks it up.
   */
  neutralMethod(wire: string): string;
  /** Typed through the method table for ACP methods; any other name (extensions) passes `unknown`. */
  encodeParams<M extends NeutralMethod>(method: M, params: ParamsOf<M>): unknown;
  encodeParams(method: string, params: unknown): unknown;
  decodeParams<M extends NeutralMethod>(method: M, wire: unknown): ParamsOf<M>;
  decodeParams(method: string, wire: unknown): unknown;
  encodeResult<M extends RequestMethod>(method: M, result: ResultOf<M>): unknown;
  encodeResult(method: string, result: unknown): unknown;
  decodeResult<M extends RequestMethod>(method: M, wire: unknown): ResultOf<M>;
  decodeResult(method: string, wire: unknown): unknown;
  createUpdateEncoder(options?: UpdateEncoderOptions): UpdateEncoder;
  createUpdateDecoder(): UpdateDecoder;
}

import { AcpError } from '../errors.js';
import type { NeutralMethod, ParamsOf, RequestMethod, ResultOf } from '../model/methods.js';
import type { WireValidator } from '../validation/types.js';
import type { UpdateDecoder, UpdateEncoder, UpdateEncoderOptions, WireCodec } from './types.js';
import { checkParamsWithMcpServers } from './mcp-over-acp.js';
import { checkResult, isObj, type JsonObject } from './util.js';

/**
 * How one method's payloads map between neutral and wire. Every step is optional (identity).
 * `prepare*` run before validation on what arrives, to accept shapes the spec tolerates.
 * `P`/`R` are the method's neutral params and result (see {@link MethodTable}).
 */
export interface MethodMapping<P = unknown, R = unknown> {
  encodeParams?(params: P): unknown;
  prepareParams?(wire: unknown): unknown;
  /** Replaces the schema check of the params (e.g. `session/update`, whose body the update decoder checks). */
  checkParams?(wire: unknown): void;
  decodeParams?(wire: JsonObject): unknown;
  encodeResult?(result: R): unknown;
  prepareResult?(wire: unknown): unknown;
  /** A tolerated legacy result, already in neutral form (skips validation), or `undefined`. */
  acceptResult?(wire: unknown): unknown;
  decodeResult?(wire: JsonObject): unknown;
}

/**
 * A codec's per-method mappings, keyed by neutral method: each `encode*` receives that method's
 * neutral params/result type. Write a table as `{ ... } satisfies MethodTable`.
 */
export type MethodTable = {
  readonly [M in NeutralMethod]?: MethodMapping<ParamsOf<M>, M extends RequestMethod ? ResultOf<M> : never>;
} & {
  /** the agent's notification: its `update` body is the update codecs' job */
  readonly 'session/update'?: MethodMapping;
};

/**
 * An elicitation answer as it arrives, before validation: an unknown `action` (a newer protocol's,
 * or a peer's mistake) reads as `cancel`, never as acceptance, and `content` counts only with
 * `accept` (ACP-ALL-ELIC-07).
 */
export function elicitationAnswerIn(wire: unknown): unknown {
  if (!isObj(wire)) return wire;
  if (wire.action === 'accept') return wire;
  const { content: _c, action, ...rest } = wire;
  return { ...rest, action: action === 'decline' ? 'decline' : 'cancel' };
}

/** `null`/absent results of methods whose result is `{}` (docs examples show `null`, ACP §5.10). */
export function emptyResultOk(wire: unknown): unknown {
  return wire === null || wire === undefined ? {} : wire;
}

/**
 * `session/update` params: only the envelope is checked here. The `update` body is the update
 * decoder's job (stateful, lenient about unknown kinds — a whole-schema check would reject a
 * newer kind on v1, whose union is closed).
 */
export const SESSION_UPDATE_ENVELOPE: MethodMapping = {
  checkParams(wire: unknown): void {
    if (!isObj(wire)) throw AcpError.invalidParams('params: must be object', { path: 'params' });
    if (typeof wire.sessionId !== 'string') {
      const missing = wire.sessionId === undefined;
      throw AcpError.invalidParams(
        missing ? "params: must have required property 'sessionId'" : 'params.sessionId: must be string',
        { path: missing ? 'params' : 'params.sessionId' },
      );
    }
    if (!isObj(wire.update)) {
      const missing = wire.update === undefined;
      throw AcpError.invalidParams(
        missing ? "params: must have required property 'update'" : 'params.update: must be object',
        { path: missing ? 'params' : 'params.update' },
      );
    }
  },
};

/** The version-independent flow: method-name mapping, validation, per-method table. */
export abstract class BaseCodec implements WireCodec {
  abstract readonly version: 1 | 2;
  /**
   * The {@link MethodTable}, read by any method name. The encode overloads below are what tie a
   * method's params/result to its entry (extension names find no entry).
   */
  protected abstract readonly table: Readonly<Record<string, MethodMapping | undefined>>;

  constructor(protected readonly validator: WireValidator | null) {}

  abstract wireMethod(neutral: string): string | undefined;
  abstract neutralMethod(wire: string): string;
  abstract createUpdateEncoder(options?: UpdateEncoderOptions): UpdateEncoder;
  abstract createUpdateDecoder(): UpdateDecoder;

  private wireOrThrow(method: string): string {
    const wire = this.wireMethod(method);
    if (wire === undefined) throw AcpError.methodNotFound(`${method} (not part of ACP v${this.version})`);
    return wire;
  }

  encodeParams<M extends NeutralMethod>(method: M, params: ParamsOf<M>): unknown;
  encodeParams(method: string, params: unknown): unknown;
  encodeParams(method: string, params: unknown): unknown {
    this.wireOrThrow(method);
    const m = this.table[method];
    return m?.encodeParams && isObj(params) ? m.encodeParams(params) : params;
  }

  // the per-method mappings produce the table's neutral shape (checked by the codec tests); the
  // overloads are the one place that says so
  decodeParams<M extends NeutralMethod>(method: M, wire: unknown): ParamsOf<M>;
  decodeParams(method: string, wire: unknown): unknown;
  decodeParams(method: string, wire: unknown): unknown {
    const m = this.table[method];
    const wireName = this.wireMethod(method);
    // JSON-RPC 2.0 lets a request or notification omit `params`: for a known ACP method that is
    // `{}`, so methods without required fields work and the others name the first missing one
    if (wire === undefined && (m !== undefined || wireName !== undefined)) wire = {};
    const value = m?.prepareParams ? m.prepareParams(wire) : wire;
    if (m?.checkParams) m.checkParams(value);
    else if (wireName !== undefined) checkParamsWithMcpServers(this.validator, wireName, value);
    // Without a validator (or for an extension method) a non-object is passed on untouched.
    return m?.decodeParams && isObj(value) ? m.decodeParams(value) : value;
  }

  encodeResult<M extends RequestMethod>(method: M, result: ResultOf<M>): unknown;
  encodeResult(method: string, result: unknown): unknown;
  encodeResult(method: string, result: unknown): unknown {
    this.wireOrThrow(method);
    const m = this.table[method];
    return m?.encodeResult && isObj(result) ? m.encodeResult(result) : result;
  }

  decodeResult<M extends RequestMethod>(method: M, wire: unknown): ResultOf<M>;
  decodeResult(method: string, wire: unknown): unknown;
  decodeResult(method: string, wire: unknown): unknown {
    const m = this.table[method];
    const accepted = m?.acceptResult ? m.acceptResult(wire) : undefined;
    if (accepted !== undefined) return accepted;
    const value = m?.prepareResult ? m.prepareResult(wire) : wire;
    const wireName = this.wireMethod(method);
    if (wireName !== undefined) checkResult(this.validator, wireName, value);
    return m?.decodeResult && isObj(value) ? m.decodeResult(value) : value;
  }
}

/**
 * The ACP v2 wire codec. The neutral model mirrors v2 names, so most payloads pass through;
 * mapped are `initialize` (`info`/`capabilities` object markers), auth methods (`env` list),
 * MCP servers (no SSE), tagged commands, `set_config_option` `type`, diffs in permission
 * subjects and the prompt result (`messageId`). Degradations: `README.md`.
 */
import { AcpError } from '../errors.js';
import type { Implementation } from '../model/session.js';
import { Methods, type SessionSetupResult } from '../model/methods.js';
import type { WireValidator } from '../validation/types.js';
import {
  BaseCodec,
  emptyResultOk,
  SESSION_UPDATE_ENVELOPE,
  type MethodMapping,
  type MethodTable,
  elicitationAnswerIn,
} from './base-codec.js';
import { AUTH_PROVIDER_MAPPINGS } from './auth-providers.js';
import { v2NeutralMethod, v2WireMethod } from './method-names.js';
import type { UpdateDecoder, UpdateEncoder, UpdateEncoderOptions } from './types.js';
import { isObj, withMeta, type JsonObject } from './util.js';
import {
  agentCapsFromV2,
  agentCapsToV2,
  authMethodsFromV2,
  authMethodsToV2,
  clientCapsFromV2,
  clientCapsToV2,
  commandFromV2,
  commandToV2,
  mcpServersFromV2,
  mcpServersToV2,
  toolPatchFromV2,
  toolPatchToV2,
} from './v2-shapes.js';
import { V2UpdateDecoder, V2UpdateEncoder } from './v2-updates.js';

/** Sent as v2's required `info` when the neutral side has none (ACP-V2-INIT-01). */
export const UNKNOWN_IMPLEMENTATION: Implementation = { name: 'unknown', version: '0.0.0' };

// ---------------------------------------------------------------- session setup results

/**
 * v2 setup results: no `modes` (modes are a `category: "mode"` config option, ACP-V2-CFG-04);
 * `configOptions`/`availableCommands` are arrays or omitted, never `null` (ACP-V2-SESS-06).
 */
function setupResultToV2(r: SessionSetupResult): JsonObject {
  const { modes: _m, configOptions, availableCommands, ...out } = r;
  const wire: JsonObject = out;
  if (Array.isArray(configOptions)) wire.configOptions = configOptions;
  if (Array.isArray(availableCommands)) wire.availableCommands = availableCommands.map(commandToV2);
  return wire;
}

/** Receivers read `null` lists as omitted (ACP-V2-SESS-06); stripped before validation. */
function prepareSetupResult(wire: unknown): unknown {
  if (wire === null || wire === undefined) return {};
  if (!isObj(wire) || (wire.configOptions !== null && wire.availableCommands !== null)) return wire;
  const out = { ...wire };
  if (out.configOptions === null) delete out.configOptions;
  if (out.availableCommands === null) delete out.availableCommands;
  return out;
}

function setupResultFromV2(w: JsonObject): JsonObject {
  return Array.isArray(w.availableCommands) ? { ...w, availableCommands: w.availableCommands.map(commandFromV2) } : w;
}

const setup: MethodMapping<unknown, SessionSetupResult> = {
  encodeResult: setupResultToV2,
  prepareResult: prepareSetupResult,
  decodeResult: setupResultFromV2,
};

/**
 * A requested-input schema for v2, which requires `type` and `properties` (v1: optional, meaning
 * an object with none) and at least one choice in every `enum`/`oneOf`/`anyOf` list (v1 allows
 * empty ones). A property offering no choice cannot be answered in v2: the request is refused.
 */
function elicitationSchemaToV2(s: JsonObject): JsonObject {
  const props = isObj(s.properties) ? s.properties : {};
  for (const [name, prop] of Object.entries(props)) {
    const lists = isObj(prop)
      ? [
          prop.enum,
          prop.oneOf,
          isObj(prop.items) ? prop.items.enum : undefined,
          isObj(prop.items) ? prop.items.anyOf : undefined,
        ]
      : [];
    if (lists.some((l) => Array.isArray(l) && l.length === 0)) {
      throw AcpError.invalidParams(
        `params.requestedSchema.properties.${name}: offers no value to choose (v2 requires at least one)`,
        { path: `params.requestedSchema.properties.${name}` },
      );
    }
  }
  return { ...s, type: s.type ?? 'object', properties: props };
}

// ---------------------------------------------------------------- method table

const TABLE = {
  [Methods.initialize]: {
    encodeParams: (p) =>
      withMeta(
        {
          protocolVersion: p.protocolVersion,
          info: isObj(p.clientInfo) ? p.clientInfo : UNKNOWN_IMPLEMENTATION,
          capabilities: clientCapsToV2(p.clientCapabilities ?? {}),
        },
        p,
      ),
    decodeParams: (w) =>
      withMeta(
        {
          protocolVersion: w.protocolVersion,
          clientInfo: w.info,
          clientCapabilities: clientCapsFromV2(w.capabilities),
        },
        w,
      ),
    encodeResult: (r) =>
      withMeta(
        {
          protocolVersion: r.protocolVersion,
          info: isObj(r.agentInfo) ? r.agentInfo : UNKNOWN_IMPLEMENTATION,
          capabilities: agentCapsToV2(r.agentCapabilities ?? {}),
          authMethods: authMethodsToV2(r.authMethods ?? []),
        },
        r,
      ),
    decodeResult: (w) => {
      const authMethods = authMethodsFromV2(Array.isArray(w.authMethods) ? w.authMethods : []);
      return withMeta(
        {
          protocolVersion: w.protocolVersion,
          agentInfo: w.info,
          agentCapabilities: agentCapsFromV2(w.capabilities, authMethods.length),
          authMethods,
        },
        w,
      );
    },
  },
  [Methods.authenticate]: { prepareResult: emptyResultOk },
  [Methods.logout]: { prepareResult: emptyResultOk },
  [Methods.sessionNew]: {
    encodeParams: (p) => ({ ...p, mcpServers: mcpServersToV2(p.mcpServers ?? []) }),
    // v2 `mcpServers` is optional (omitted = none, ACP-V2-SESS-01); the neutral list is required.
    decodeParams: (w) => ({ ...w, mcpServers: mcpServersFromV2(Array.isArray(w.mcpServers) ? w.mcpServers : []) }),
    ...setup,
  },
  [Methods.sessionResume]: {
    encodeParams: (p) => (Array.isArray(p.mcpServers) ? { ...p, mcpServers: mcpServersToV2(p.mcpServers) } : p),
    decodeParams: (w) => (Array.isArray(w.mcpServers) ? { ...w, mcpServers: mcpServersFromV2(w.mcpServers) } : w),
    ...setup,
  },
  [Methods.sessionClose]: { prepareResult: emptyResultOk },
  [Methods.sessionDelete]: { prepareResult: emptyResultOk },
  [Methods.sessionSetConfigOption]: {
    // v2 requires `type`: `id` for select values, `boolean` for booleans (ACP-V2-CFG-02).
    encodeParams: (p) =>
      'type' in p && typeof p.type === 'string' ? p : { ...p, type: typeof p.value === 'boolean' ? 'boolean' : 'id' },
    decodeParams: (w) => {
      if (w.type !== 'id' && w.type !== 'boolean') return w; // custom value types stay tagged
      const { type: _t, ...rest } = w;
      return rest;
    },
  },
  [Methods.sessionPrompt]: {
    // v2 requires at least one block (ACP-V2-LIFE-14; v1 allows an empty prompt): refused
    encodeParams: (p) => {
      if (Array.isArray(p.prompt) && p.prompt.length === 0)
        throw AcpError.invalidParams('params.prompt: a v2 prompt needs at least one content block (ACP-V2-LIFE-14)', {
          path: 'params.prompt',
        });
      return p;
    },
    // v2 answers at insertion with the user message's id (ACP-V2-LIFE-03); the stop reason
    // travels in the idle `state_update` instead.
    encodeResult: (r) => {
      if (typeof r.messageId !== 'string') {
        throw AcpError.internal(
          "a v2 session/prompt result needs the inserted user message's messageId (ACP-V2-LIFE-03)",
        );
      }
      return withMeta({ messageId: r.messageId }, r);
    },
    // Older v2 agents answer `{}` (August draft) or `null`: accepted, no messageId.
    acceptResult: (w) => {
      if (w === null || w === undefined) return {};
      if (isObj(w) && w.messageId === undefined) return withMeta({}, w);
      return undefined;
    },
  },
  [Methods.sessionUpdate]: SESSION_UPDATE_ENVELOPE,
  [Methods.requestPermission]: {
    encodeParams: (p) => {
      // v2 requires a choice (`options` minItems 1; v1 allows none): nothing to ask is refused
      if (Array.isArray(p.options) && p.options.length === 0)
        throw AcpError.invalidParams('params.options: a v2 permission request needs at least one option', {
          path: 'params.options',
        });
      const s = p.subject;
      if (!isObj(s) || s.type !== 'tool_call' || !isObj(s.toolCall)) return p;
      const toolCall = toolPatchToV2(s.toolCall);
      return toolCall === s.toolCall ? p : { ...p, subject: { ...s, toolCall } };
    },
    decodeParams: (w) => {
      const s = w.subject;
      if (!isObj(s) || s.type !== 'tool_call' || !isObj(s.toolCall)) return w;
      const toolCall = toolPatchFromV2(s.toolCall);
      return toolCall === s.toolCall ? w : { ...w, subject: { ...s, toolCall } };
    },
  },
  'elicitation/create': {
    // v2 scopes every elicitation to a session or a request (v1 may name neither): unscoped is refused
    encodeParams: (p) => {
      if (typeof p.sessionId !== 'string' && typeof p.requestId !== 'string' && typeof p.requestId !== 'number') {
        throw AcpError.invalidParams('params: a v2 elicitation needs a sessionId or a requestId', { path: 'params' });
      }
      return 'requestedSchema' in p && isObj(p.requestedSchema)
        ? { ...p, requestedSchema: elicitationSchemaToV2(p.requestedSchema) }
        : p;
    },
    prepareResult: elicitationAnswerIn,
  },
  [Methods.toolCallCancel]: { prepareResult: emptyResultOk },
  [Methods.terminalCancel]: { prepareResult: emptyResultOk },
  // unstable (schema.unstable.json): checked against it by the validator's fallback
  [Methods.sessionFork]: {
    encodeParams: (p) => (Array.isArray(p.mcpServers) ? { ...p, mcpServers: mcpServersToV2(p.mcpServers) } : p),
    decodeParams: (w) => (Array.isArray(w.mcpServers) ? { ...w, mcpServers: mcpServersFromV2(w.mcpServers) } : w),
    ...setup,
  },
  [Methods.sessionArchive]: { prepareResult: emptyResultOk },
  [Methods.sessionUnarchive]: { prepareResult: emptyResultOk },
  ...AUTH_PROVIDER_MAPPINGS,
} satisfies MethodTable;

/** The v2 codec. `validator` checks what arrives (`null`: no validation, for tests of pure mapping). */
export class V2Codec extends BaseCodec {
  readonly version = 2 as const;
  protected readonly table = TABLE;

  constructor(validator: WireValidator | null) {
    super(validator);
  }

  wireMethod(neutral: string): string | undefined {
    return v2WireMethod(neutral);
  }

  neutralMethod(wire: string): string {
    return v2NeutralMethod(wire);
  }

  createUpdateEncoder(options: UpdateEncoderOptions = {}): UpdateEncoder {
    return new V2UpdateEncoder(options);
  }

  createUpdateDecoder(): UpdateDecoder {
    return new V2UpdateDecoder(this.validator);
  }
}

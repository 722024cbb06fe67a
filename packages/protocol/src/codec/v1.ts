/**
 * The ACP v1 wire codec. Method payloads differ from the neutral model in field names
 * (`clientInfo`, `id`, `group`), capability shapes (booleans + markers), MCP stdio without
 * `type`, the prompt result (`stopReason` at the end of the turn) and permission requests
 * (always about a tool call). Degradations: `README.md`.
 */
import { randomUUID } from '../lazy-crypto.js';
import { AcpError, ErrorCode } from '../errors.js';
import { Methods, type SessionSetupResult, type TurnUsage } from '../model/methods.js';
import type { PermissionRequest } from '../model/session.js';
import { V1_STOP_REASONS } from '../model/stop-reason.js';
import type { ErrorObject } from '../model/update.js';
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
import { v1NeutralMethod, v1WireMethod } from './method-names.js';
import type { UpdateDecoder, UpdateEncoder, UpdateEncoderOptions } from './types.js';
import { isObj, withMeta, type JsonObject } from './util.js';
import {
  agentCapsFromV1,
  agentCapsToV1,
  authMethodsFromV1,
  authMethodsToV1,
  blockFromV1,
  blocksToV1,
  clientCapsFromV1,
  clientCapsToV1,
  configOptionsFromV1,
  configOptionsToV1,
  mcpServersFromV1,
  mcpServersToV1,
  toolPatchFromV1,
  toolPatchToV1,
} from './v1-shapes.js';
import { V1UpdateDecoder, V1UpdateEncoder } from './v1-updates.js';

/**
 * The v1 form of a neutral stop reason, or `null` when v1 cannot say it: v1's set is closed
 * (ACP-V1-STOP-01). `error` has no v1 value — answer the prompt with a JSON-RPC error instead
 * ({@link promptErrorForV1}); custom (`_x`) and unknown reasons become `end_turn`.
 */
export function toV1StopReason(reason: string | null | undefined): string | null {
  if (reason === 'error') return null;
  return reason && V1_STOP_REASONS.includes(reason) ? reason : 'end_turn';
}

/** The JSON-RPC error a v1 agent answers `session/prompt` with when the turn ended in `error`. */
export function promptErrorForV1(error?: ErrorObject | null): AcpError {
  if (error && typeof error.code === 'number' && typeof error.message === 'string')
    return new AcpError(error.code, error.message, error.data);
  return new AcpError(ErrorCode.InternalError, 'Internal error: the prompt turn failed');
}

// ---------------------------------------------------------------- session setup results

function setupResultToV1(r: SessionSetupResult): JsonObject {
  // `availableCommands` is v2 only: a v1 agent sends an `available_commands_update` instead.
  const { availableCommands: _c, ...out } = r;
  return Array.isArray(out.configOptions) ? { ...out, configOptions: configOptionsToV1(out.configOptions) } : out;
}

function setupResultFromV1(w: JsonObject): JsonObject {
  const out = { ...w };
  if (Array.isArray(out.configOptions)) out.configOptions = configOptionsFromV1(out.configOptions);
  else delete out.configOptions; // v1 allows `null`: the neutral model says "absent"
  return out;
}

const setup: MethodMapping<unknown, SessionSetupResult> = {
  encodeResult: setupResultToV1,
  prepareResult: emptyResultOk,
  decodeResult: setupResultFromV1,
};

function withMcpFromV1(w: JsonObject): JsonObject {
  return Array.isArray(w.mcpServers) ? { ...w, mcpServers: mcpServersFromV1(w.mcpServers) } : w;
}

// ---------------------------------------------------------------- permission requests

/**
 * v1 asks about a tool call only (`toolCall`, ACP-V1-PERM-01) and has no title/description.
 * A `tool_call` subject is sent as is (its own title, if any, names the prompt). Any other
 * subject becomes a synthetic tool call carrying the permission's title (and the description as
 * text content); a `command` subject associated with an existing call refers to that call.
 */
function permissionToV1(p: PermissionRequest): JsonObject {
  const s = isObj(p.subject) ? p.subject : null;
  let toolCall: JsonObject;
  if (s && s.type === 'tool_call' && isObj(s.toolCall)) {
    toolCall = toolPatchToV1(s.toolCall);
  } else if (s && s.type === 'command' && typeof s.toolCallId === 'string') {
    toolCall = { toolCallId: s.toolCallId };
  } else {
    toolCall = { toolCallId: `permission-${randomUUID()}`, title: p.title };
    if (s && s.type === 'command') {
      toolCall.kind = 'execute';
      toolCall.rawInput = { command: s.command, cwd: s.cwd };
    }
    if (p.description) toolCall.content = [{ type: 'content', content: { type: 'text', text: p.description } }];
  }
  // v1's option kinds are closed: an option of a custom v2 kind cannot say whether it allows or
  // rejects, so it is not offered (never presented as something it may not be)
  const options = Array.isArray(p.options) ? p.options.filter((o) => V1_OPTION_KINDS.has(o.kind)) : p.options;
  return withMeta({ sessionId: p.sessionId, toolCall, options }, p);
}

const V1_OPTION_KINDS: ReadonlySet<string> = new Set(['allow_once', 'allow_always', 'reject_once', 'reject_always']);

function permissionFromV1(w: JsonObject): JsonObject {
  const toolCall = toolPatchFromV1(isObj(w.toolCall) ? w.toolCall : {});
  const out: JsonObject = {
    sessionId: w.sessionId,
    title: typeof toolCall.title === 'string' ? toolCall.title : 'Permission requested',
    subject: { type: 'tool_call', toolCall },
    options: w.options,
  };
  return withMeta(out, w);
}

const V1_STRING_FORMATS: ReadonlySet<unknown> = new Set(['email', 'uri', 'date', 'date-time']);

/**
 * A requested-input schema for v1, whose string `format`s are a closed set (v2: open): a custom
 * format is a hint v1 cannot name, left out (the agent still validates what it gets).
 */
function elicitationSchemaToV1(s: JsonObject): JsonObject {
  if (!isObj(s.properties)) return s;
  let changed = false;
  const properties: JsonObject = {};
  for (const [name, prop] of Object.entries(s.properties)) {
    if (isObj(prop) && typeof prop.format === 'string' && !V1_STRING_FORMATS.has(prop.format)) {
      const { format: _f, ...rest } = prop;
      properties[name] = rest;
      changed = true;
    } else properties[name] = prop;
  }
  return changed ? { ...s, properties } : s;
}

function isV1ElicitationValue(v: unknown): boolean {
  return (
    ['string', 'number', 'boolean'].includes(typeof v) || (Array.isArray(v) && v.every((x) => typeof x === 'string'))
  );
}

// ---------------------------------------------------------------- method table

const TABLE = {
  [Methods.initialize]: {
    encodeParams: (p) => {
      const out: JsonObject = {
        protocolVersion: p.protocolVersion,
        clientCapabilities: clientCapsToV1(p.clientCapabilities ?? {}),
      };
      if (isObj(p.clientInfo)) out.clientInfo = p.clientInfo;
      return withMeta(out, p);
    },
    decodeParams: (w) =>
      withMeta(
        {
          protocolVersion: w.protocolVersion,
          clientInfo: isObj(w.clientInfo) ? w.clientInfo : null,
          clientCapabilities: clientCapsFromV1(w.clientCapabilities),
        },
        w,
      ),
    encodeResult: (r) => {
      const out: JsonObject = {
        protocolVersion: r.protocolVersion,
        agentCapabilities: agentCapsToV1(r.agentCapabilities ?? {}),
        authMethods: authMethodsToV1(r.authMethods ?? []),
      };
      if (isObj(r.agentInfo)) out.agentInfo = r.agentInfo;
      return withMeta(out, r);
    },
    decodeResult: (w) =>
      withMeta(
        {
          protocolVersion: w.protocolVersion,
          agentInfo: isObj(w.agentInfo) ? w.agentInfo : null,
          agentCapabilities: agentCapsFromV1(w.agentCapabilities),
          authMethods: authMethodsFromV1(Array.isArray(w.authMethods) ? w.authMethods : []),
        },
        w,
      ),
  },
  [Methods.authenticate]: { prepareResult: emptyResultOk },
  [Methods.logout]: { prepareResult: emptyResultOk },
  [Methods.sessionNew]: {
    encodeParams: (p) => ({ ...p, mcpServers: mcpServersToV1(p.mcpServers ?? []) }),
    decodeParams: withMcpFromV1,
    ...setup,
  },
  [Methods.sessionLoad]: {
    encodeParams: (p) => ({ ...p, mcpServers: mcpServersToV1(p.mcpServers ?? []) }),
    decodeParams: withMcpFromV1,
    ...setup,
  },
  [Methods.sessionResume]: {
    // `replayFrom` is v2 only: v1 `session/resume` never replays (ACP-V1-RESUME-02); a client
    // that wants history on v1 uses `session/load`.
    encodeParams: (p) => {
      const { replayFrom: _r, ...rest } = p;
      return Array.isArray(rest.mcpServers) ? { ...rest, mcpServers: mcpServersToV1(rest.mcpServers) } : rest;
    },
    decodeParams: withMcpFromV1,
    ...setup,
  },
  [Methods.sessionClose]: { prepareResult: emptyResultOk },
  [Methods.sessionDelete]: { prepareResult: emptyResultOk },
  [Methods.sessionSetMode]: { prepareResult: emptyResultOk },
  [Methods.sessionSetConfigOption]: {
    // v1: select values carry no `type`, booleans `type: "boolean"` (ACP-V1-CFG-02).
    encodeParams: (p) => {
      const rest: JsonObject = { ...p };
      delete rest.type;
      return typeof p.value === 'boolean' ? { ...rest, type: 'boolean' } : rest;
    },
    decodeParams: (w) => {
      const { type: _t, ...rest } = w;
      return rest;
    },
    encodeResult: (r) => ({ ...r, configOptions: configOptionsToV1(r.configOptions ?? []) }),
    decodeResult: (w) => ({
      ...w,
      configOptions: configOptionsFromV1(Array.isArray(w.configOptions) ? w.configOptions : []),
    }),
  },
  [Methods.sessionPrompt]: {
    encodeParams: (p) => (Array.isArray(p.prompt) ? { ...p, prompt: blocksToV1(p.prompt) } : p),
    // the prompt's blocks pass the v1 -> v2 value rules (annotation priority, resource size)
    decodeParams: (w) => (Array.isArray(w.prompt) ? { ...w, prompt: w.prompt.map(blockFromV1) } : w),
    // v1 answers at the end of the turn with a closed-set stop reason; `messageId` (v2) is dropped.
    encodeResult: (r) => {
      const stopReason = toV1StopReason(r.stopReason);
      if (stopReason === null) throw promptErrorForV1(r.error);
      return withMeta(isTurnUsage(r.usage) ? { stopReason, usage: r.usage } : { stopReason }, r);
    },
    // unstable `usage` is default-on-error in the schema: a malformed one is left out, never fatal
    decodeResult: (w) => {
      if (w.usage === undefined || isTurnUsage(w.usage)) return w;
      const { usage: _dropped, ...rest } = w;
      return rest;
    },
  },
  [Methods.sessionUpdate]: SESSION_UPDATE_ENVELOPE,
  [Methods.requestPermission]: {
    encodeParams: permissionToV1,
    decodeParams: permissionFromV1,
    // v1 knows only `cancelled` and `selected`; anything else must never read as approval.
    encodeResult: (r) => {
      const o = r.outcome;
      if (isObj(o) && (o.outcome === 'cancelled' || (o.outcome === 'selected' && typeof o.optionId === 'string')))
        return r;
      return { ...r, outcome: { outcome: 'cancelled' } };
    },
  },
  'elicitation/create': {
    encodeParams: (p) =>
      'requestedSchema' in p && isObj(p.requestedSchema)
        ? { ...p, requestedSchema: elicitationSchemaToV1(p.requestedSchema) }
        : p,
    // v1 allows `requestId: null` ("no request"); v2 has no null id: the same as leaving it out
    decodeParams: (w) => {
      if (w.requestId !== null) return w;
      const { requestId: _null, ...rest } = w;
      return rest;
    },
    // v2 accepts any JSON as a content value ("Other"); v1 only strings, numbers, booleans and
    // string arrays: a value v1 cannot carry is left out (the agent sees the field unanswered)
    encodeResult: (r) => {
      const content: unknown = 'content' in r ? r.content : undefined;
      if (!isObj(content)) return r;
      const kept = Object.entries(content).filter(([, v]) => isV1ElicitationValue(v));
      return kept.length === Object.keys(content).length ? r : { ...r, content: Object.fromEntries(kept) };
    },
    prepareResult: elicitationAnswerIn,
  },
  [Methods.fsWriteTextFile]: { prepareResult: emptyResultOk },
  [Methods.terminalKill]: { prepareResult: emptyResultOk },
  [Methods.terminalRelease]: { prepareResult: emptyResultOk },
  // unstable (schema.unstable.json): checked against it by the validator's fallback
  [Methods.sessionFork]: {
    encodeParams: (p) => (Array.isArray(p.mcpServers) ? { ...p, mcpServers: mcpServersToV1(p.mcpServers) } : p),
    decodeParams: withMcpFromV1,
    ...setup,
  },
  [Methods.sessionArchive]: { prepareResult: emptyResultOk },
  [Methods.sessionUnarchive]: { prepareResult: emptyResultOk },
  ...AUTH_PROVIDER_MAPPINGS,
  // v1 has no foreground-state snapshot in the status result (v2 only)
  [Methods.sessionStatus]: {
    encodeResult: (r) => {
      const { state: _s, ...rest } = r;
      return rest;
    },
  },
} satisfies MethodTable;

/** The v1 codec. `validator` checks what arrives (`null`: no validation, for tests of pure mapping). */
export class V1Codec extends BaseCodec {
  readonly version = 1 as const;
  protected readonly table = TABLE;

  constructor(validator: WireValidator | null) {
    super(validator);
  }

  wireMethod(neutral: string): string | undefined {
    return v1WireMethod(neutral);
  }

  neutralMethod(wire: string): string {
    return v1NeutralMethod(wire);
  }

  createUpdateEncoder(options: UpdateEncoderOptions = {}): UpdateEncoder {
    return new V1UpdateEncoder(options);
  }

  createUpdateDecoder(): UpdateDecoder {
    return new V1UpdateDecoder(this.validator);
  }
}

const tokenCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** A well-formed v1 `Usage` (unstable): the three required counts, the optional ones counts or null. */
function isTurnUsage(u: unknown): u is TurnUsage {
  if (!isObj(u)) return false;
  if (!tokenCount(u.totalTokens) || !tokenCount(u.inputTokens) || !tokenCount(u.outputTokens)) return false;
  return ['thoughtTokens', 'cachedReadTokens', 'cachedWriteTokens'].every(
    (k) => u[k] === undefined || u[k] === null || tokenCount(u[k]),
  );
}

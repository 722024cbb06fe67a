/**
 * `session/update` payloads, v2 <-> neutral. The neutral model mirrors v2, so most updates pass
 * through as the same object (no copy: the benchmark pushes 100k chunks/s through here). Mapped:
 * tool-call diffs, tagged commands, and the two neutral kinds stable v2 lacks.
 */
import type { ConfigOption } from '../model/session.js';
import { KNOWN_UPDATE_KINDS, type AnySessionUpdate } from '../model/update.js';
import type { WireValidator } from '../validation/types.js';
import type { UpdateDecoder, UpdateEncoder } from './types.js';
import { decodeSharedUnstable, isSharedUnstableKind } from './unstable-updates.js';
import { decodedUpdates, invalidParams, isObj, isPlainTextChunk, updateBody, type JsonObject } from './util.js';
import {
  commandFromV2,
  commandToV2,
  toolContentFromV2,
  toolContentToV2,
  toolPatchFromV2,
  toolPatchToV2,
} from './v2-shapes.js';

/** The `sessionUpdate` kinds of the stable v2 schema (19, ACP §3.2). */
export const V2_UPDATE_KINDS: ReadonlySet<string> = new Set([
  'user_message_chunk',
  'user_message',
  'agent_message_chunk',
  'agent_message',
  'agent_thought_chunk',
  'agent_thought',
  'state_update',
  'tool_call_content_chunk',
  'tool_call_update',
  'terminal_update',
  'terminal_output_chunk',
  'plan_update',
  'available_commands_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
  'notice',
  'compaction_update',
  'compaction_summary_chunk',
]);

const CHUNK_KINDS: ReadonlySet<string> = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

export interface V2EncoderOptions {
  /** The session's config options as last sent (e.g. in the `session/new` result); see `current_mode_update`. */
  configOptions?: readonly ConfigOption[];
}

/**
 * Agent side, one per session: neutral updates -> v2 `update` payloads.
 *
 * - neutral `diff` (whole texts) -> v2 `diff` with `changes` + `git_patch`; `file_changes` -> `diff`;
 * - `current_mode_update` (v1 only): modes are the `category: "mode"` config option in v2, so it
 *   becomes a `config_option_update` with that option's `currentValue` changed — when the encoder
 *   knows the options (from an earlier `config_option_update` or `options.configOptions`);
 *   otherwise it is dropped;
 * - `plan_removed` (unstable in v2): sent as an empty `items` plan with that `planId`, which a
 *   stable client shows as an empty plan.
 */
export class V2UpdateEncoder implements UpdateEncoder {
  private configOptions: readonly ConfigOption[] | undefined;

  constructor(options: V2EncoderOptions = {}) {
    this.configOptions = options.configOptions;
  }

  encode(u: AnySessionUpdate): object[] {
    switch (u.sessionUpdate) {
      case 'tool_call_update':
        return [toolPatchToV2(u)];
      case 'tool_call_content_chunk': {
        const content = toolContentToV2(u.content);
        return [content === u.content ? u : { ...u, content }];
      }
      case 'available_commands_update':
        return [{ ...u, availableCommands: u.availableCommands.map(commandToV2) }];
      case 'config_option_update':
        this.configOptions = u.configOptions;
        return [u];
      case 'current_mode_update': {
        let found = false;
        const next = (this.configOptions ?? []).map((o): ConfigOption => {
          if (found || o.type !== 'select' || o.category !== 'mode') return o;
          found = true;
          return { ...o, currentValue: u.currentModeId };
        });
        if (!found) return [];
        this.configOptions = next;
        const out: JsonObject = { sessionUpdate: 'config_option_update', configOptions: next };
        if (isObj(u._meta)) out._meta = u._meta;
        return [out];
      }
      case 'plan_removed': {
        const out: JsonObject = {
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: u.planId, entries: [] },
        };
        if (isObj(u._meta)) out._meta = u._meta;
        return [out];
      }
      default:
        // Messages, chunks, state, terminals, plans, info, usage, notices, compaction: the neutral
        // shape is the v2 shape. Unknown kinds pass through untouched (ACP-V2-EXT-03).
        return [u];
    }
  }
}

/**
 * Client side: v2 `update` payloads -> neutral updates. Validates known kinds (a bad body throws
 * -32602 naming the path, ACP-V2-EXT-04), keeps unknown kinds raw (ACP-V2-EXT-03), and accepts
 * the older draft shapes `state_change` / `stop_reason` (normalized to `state_update` / `stopReason`).
 */
export class V2UpdateDecoder implements UpdateDecoder {
  constructor(private readonly validator: WireValidator | null) {}

  decode(wire: unknown): AnySessionUpdate[] {
    // the neutral model mirrors v2: known kinds are only schema-checked, not mapped
    return decodedUpdates(this.decodeOne(updateBody(wire)));
  }

  private decodeOne(wire: JsonObject): JsonObject | undefined {
    let w = wire;
    const tag = w.sessionUpdate;
    if (typeof tag !== 'string') {
      const f = {
        path: tag === undefined ? '' : 'sessionUpdate',
        message: tag === undefined ? "must have required property 'sessionUpdate'" : 'must be string',
      };
      throw invalidParams('params.update', f);
    }
    let kind: string = tag;
    if (kind === 'state_change' || (kind === 'state_update' && 'stop_reason' in w)) {
      w = normalizeStateUpdate(w);
      kind = 'state_update';
    }
    if (!V2_UPDATE_KINDS.has(kind)) return this.unknown(w, kind);
    if (CHUNK_KINDS.has(kind) && isPlainTextChunk(w, true)) return w;
    if (this.validator) {
      const f = this.validator.update(w);
      if (f && f !== 'unknown') throw invalidParams('params.update', f);
    }
    switch (kind) {
      case 'tool_call_update':
        return toolPatchFromV2(w);
      case 'tool_call_content_chunk': {
        const content = toolContentFromV2(w.content);
        return content === w.content ? w : { ...w, content };
      }
      case 'available_commands_update':
        return Array.isArray(w.availableCommands)
          ? { ...w, availableCommands: w.availableCommands.map(commandFromV2) }
          : w;
      default:
        return w;
    }
  }

  private unknown(w: JsonObject, kind: string): JsonObject | undefined {
    // Unstable v2 `plan_removed`, and v1's `current_mode_update` from a confused peer: the
    // neutral model has both, so keep them when well formed.
    if (kind === 'plan_removed' && typeof w.planId === 'string') return w;
    if (kind === 'current_mode_update' && typeof w.currentModeId === 'string') return w;
    if (isSharedUnstableKind(kind)) return decodeSharedUnstable(w, this.validator);
    if (KNOWN_UPDATE_KINDS.has(kind)) return undefined;
    return w;
  }
}

/** August-draft `state_change` / `stop_reason` -> `state_update` / `stopReason` (ACP digest §6.1-2). */
function normalizeStateUpdate(w: JsonObject): JsonObject {
  const { stop_reason, ...rest } = w;
  const out: JsonObject = { ...rest, sessionUpdate: 'state_update' };
  if (out.stopReason === undefined && stop_reason !== undefined) out.stopReason = stop_reason;
  return out;
}

/**
 * `session/update` payloads, v1 <-> neutral. Both directions are stateful per session:
 * the encoder remembers what a v1 client has already been shown (messages, tool-call content,
 * plans) because v1 cannot express v2's upserts; the decoder mints message ids for v1 chunks
 * that carry none (ACP-V1-MSG-01/02).
 */
import { randomUUID } from '../lazy-crypto.js';
import type { AnyContentBlock, TextContent } from '../model/content.js';
import { V1_PLAN_ID, type PlanEntry } from '../model/plan.js';
import type { ClientCapabilities } from '../model/session.js';
import type { AnyToolCallContent } from '../model/tool-call.js';
import {
  KNOWN_UPDATE_KINDS,
  type AnySessionUpdate,
  type MessageChunk,
  type MessageRole,
  type MessageUpdate,
} from '../model/update.js';
import type { WireValidator } from '../validation/types.js';
import type { UpdateDecoder, UpdateEncoder } from './types.js';
import { decodeSharedUnstable, isSharedUnstableKind } from './unstable-updates.js';
import {
  blockToV1,
  blocksToV1,
  commandToV1,
  configOptionsFromV1,
  configOptionsToV1,
  planEntryToV1,
  toolContentsToV1,
  blockFromV1,
  toolPatchFromV1,
  toolPatchToV1,
} from './v1-shapes.js';
import { decodedUpdates, invalidParams, isObj, isPlainTextChunk, updateBody, type JsonObject } from './util.js';

/** The `sessionUpdate` kinds of the stable v1 schema. */
export const V1_UPDATE_KINDS: ReadonlySet<string> = new Set([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
  'notice',
  'compaction_update',
  'compaction_summary_chunk',
]);

const CHUNK_ROLE: Readonly<Record<MessageChunk['sessionUpdate'], MessageRole>> = {
  user_message_chunk: 'user',
  agent_message_chunk: 'agent',
  agent_thought_chunk: 'thought',
};
/** Whether `kind` is a message chunk kind (own keys only: `toString` is no update kind). */
const isChunkKind = (kind: string): kind is MessageChunk['sessionUpdate'] => Object.hasOwn(CHUNK_ROLE, kind);
const MESSAGE_CHUNK_KIND: Readonly<Record<MessageUpdate['sessionUpdate'], MessageChunk['sessionUpdate']>> = {
  user_message: 'user_message_chunk',
  agent_message: 'agent_message_chunk',
  agent_thought: 'agent_thought_chunk',
};
const MESSAGE_ROLE: Readonly<Record<MessageUpdate['sessionUpdate'], MessageRole>> = {
  user_message: 'user',
  agent_message: 'agent',
  agent_thought: 'thought',
};
/**
 * v1 kinds that start no new content in the timeline: an id-less chunk after one of them
 * continues the current message (goose interleaves `usage_update` with its answer's chunks).
 */
const CONTINUES_MESSAGE: ReadonlySet<string> = new Set([
  'usage_update',
  'available_commands_update',
  'session_info_update',
  'current_mode_update',
  'config_option_update',
  'plan',
]);

// ------------------------------------------------------------------------------------------ encoder

/** Plain text merges across chunk boundaries (clients concatenate adjacent text chunks). */
type Segment = string | AnyContentBlock;

function isPlainText(b: AnyContentBlock): b is TextContent {
  if (b.type !== 'text') return false;
  const { type: _t, text: _x, ...rest } = b;
  const other: JsonObject = rest; // annotations, _meta and any extension keys
  for (const k in other) if (other[k] !== undefined && other[k] !== null) return false;
  return true;
}

function segments(blocks: readonly AnyContentBlock[]): Segment[] {
  const out: Segment[] = [];
  for (const b of blocks) {
    if (isPlainText(b)) {
      const last = out.length - 1;
      const prev = out[last];
      if (last >= 0 && typeof prev === 'string') out[last] = prev + b.text;
      else out.push(b.text);
    } else out.push(b);
  }
  return out;
}

function sameSegment(a: Segment, b: Segment): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * What to append to `shown` so that it reads as `next`, or `null` when `next` is not an
 * extension of what the client already shows (a true replacement, which v1 cannot express).
 */
export function messageDelta(
  shown: readonly AnyContentBlock[],
  next: readonly AnyContentBlock[],
): AnyContentBlock[] | null {
  const a = segments(shown);
  const b = segments(next);
  if (a.length > b.length) return null;
  const delta: Segment[] = [];
  for (const [i, x] of a.entries()) {
    const y = b[i];
    // b is at least as long as a
    if (y === undefined) return null;
    if (sameSegment(x, y)) continue;
    if (i === a.length - 1 && typeof x === 'string' && typeof y === 'string' && y.startsWith(x)) {
      delta.push(y.slice(x.length));
      continue;
    }
    return null;
  }
  delta.push(...b.slice(a.length));
  return delta.map((s) => (typeof s === 'string' ? { type: 'text', text: s } : s));
}

export interface V1EncoderOptions {
  clientCapabilities?: ClientCapabilities;
}

/**
 * Agent side, one per session: neutral updates -> v1 `update` payloads. See README.md for every
 * degradation; the non-obvious ones:
 *
 * - whole-message upserts become chunks; a later upsert of a message that only *extends* what
 *   was sent (streaming by snapshots) becomes the missing tail; any other replacement or clear
 *   of an already-sent message cannot be expressed in v1 and is dropped;
 * - the first `tool_call_update` (or content chunk) of a call becomes `tool_call`, content
 *   chunks re-send the whole accumulated list;
 * - all plans are merged into v1's single plan.
 */
export class V1UpdateEncoder implements UpdateEncoder {
  private readonly caps: ClientCapabilities;
  /** Message ids already shown, per role (v2: separate id spaces, ACP-V2-MSG-08). */
  private readonly seen: Record<MessageRole, Set<string>> = { user: new Set(), agent: new Set(), thought: new Set() };
  /** Content shown so far of the latest message of each role (to turn snapshot upserts into tails). */
  private readonly latest: Partial<Record<MessageRole, { id: string; blocks: AnyContentBlock[] }>> = {};
  /** Neutral content of every tool call announced to the client. */
  private readonly tools = new Map<string, AnyToolCallContent[]>();
  /** Entries of every live plan, in first-seen order; v1 shows their concatenation. */
  private readonly plans = new Map<string, PlanEntry[]>();

  constructor(options: V1EncoderOptions = {}) {
    this.caps = options.clientCapabilities ?? {};
  }

  encode(u: AnySessionUpdate): object[] {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk':
      case 'user_message_chunk': {
        const block = blockToV1(u.content);
        if (!block) return [];
        this.shown(CHUNK_ROLE[u.sessionUpdate], u.messageId, block);
        return [block === u.content ? u : { ...u, content: block }];
      }
      case 'agent_message':
      case 'agent_thought':
      case 'user_message':
        return this.message(u);
      case 'tool_call_update': {
        const id = u.toolCallId;
        const body = toolPatchToV1(u);
        if (!this.tools.has(id)) {
          this.tools.set(id, Array.isArray(u.content) ? u.content.slice() : []);
          // v1 `tool_call` needs a title (ACP-V1-TOOL-01); kind/status default on the client.
          const title = typeof u.title === 'string' ? u.title : typeof u.name === 'string' ? u.name : 'Tool call';
          return [{ sessionUpdate: 'tool_call', ...body, title }];
        }
        if (u.content !== undefined) this.tools.set(id, u.content === null ? [] : u.content.slice());
        if (Object.keys(body).length === 1) return [];
        return [{ sessionUpdate: 'tool_call_update', ...body }];
      }
      case 'tool_call_content_chunk': {
        const id = u.toolCallId;
        let list = this.tools.get(id);
        const first = !list;
        if (!list) this.tools.set(id, (list = []));
        list.push(u.content);
        const content = toolContentsToV1(list);
        return [
          first
            ? { sessionUpdate: 'tool_call', toolCallId: id, title: 'Tool call', content }
            : { sessionUpdate: 'tool_call_update', toolCallId: id, content },
        ];
      }
      case 'plan_update': {
        const plan = u.plan;
        // Only `items` plans have entries; other plan types (markdown, file, custom) show as none.
        this.plans.set(plan.planId, plan.type === 'items' && Array.isArray(plan.entries) ? plan.entries : []);
        return [this.mergedPlan(u._meta)];
      }
      case 'plan_removed':
        if (!this.plans.delete(u.planId)) return [];
        return [this.mergedPlan(u._meta)];
      case 'state_update':
        // v1 derives state from the `session/prompt` request's lifetime: the agent runtime
        // answers the prompt with the stop reason instead.
        return [];
      case 'terminal_update':
      case 'terminal_output_chunk':
        // v1 terminals are client-owned processes (`terminal/create`); an agent-owned display
        // terminal has no v1 form (ACP-V2-TERM-12: never translate by shape).
        return [];
      case 'notice':
        return this.caps.notices ? [u] : []; // ACP-V1-NOTICE-01
      case 'compaction_update':
        if (!this.caps.compaction) return []; // ACP-V1-COMPACT-01
        return [Array.isArray(u.summary) ? { ...u, summary: blocksToV1(u.summary) } : u];
      case 'compaction_summary_chunk': {
        if (!this.caps.compaction) return [];
        const block = blockToV1(u.content);
        if (!block) return [];
        return [block === u.content ? u : { ...u, content: block }];
      }
      case 'config_option_update':
        return [{ ...u, configOptions: configOptionsToV1(u.configOptions, this.caps.booleanConfigOptions === true) }];
      case 'available_commands_update':
        return [{ ...u, availableCommands: u.availableCommands.map(commandToV1) }];
      case 'current_mode_update':
      case 'session_info_update':
      case 'usage_update':
        return [u];
      case 'subagent_update':
      case 'session_message':
      case 'session_message_chunk':
        // unstable v1 kinds, only for a client that advertised `subagents` (else not in its union)
        return this.caps.subagents ? [u] : [];
      default:
        // v1's SessionUpdate union is closed: an unknown or extension (`_x`) kind would fail the
        // official v1 schema on output, so it is not sent (v2 passes them through, ACP-V2-EXT-03).
        return [];
    }
  }

  private shown(role: MessageRole, id: string, block: AnyContentBlock): void {
    this.seen[role].add(id);
    const cur = this.latest[role];
    if (cur && cur.id === id) cur.blocks.push(block);
    else this.latest[role] = { id, blocks: [block] };
  }

  private message(u: MessageUpdate): object[] {
    if (u.content === undefined) return []; // metadata-only upsert: nothing to show in v1
    const role = MESSAGE_ROLE[u.sessionUpdate];
    const kind = MESSAGE_CHUNK_KIND[u.sessionUpdate];
    const blocks = u.content === null ? [] : blocksToV1(u.content);
    const id = u.messageId;
    let delta: AnyContentBlock[] | null;
    if (!this.seen[role].has(id)) {
      delta = blocks;
    } else {
      const cur = this.latest[role];
      delta = cur && cur.id === id ? messageDelta(cur.blocks, blocks) : null;
    }
    if (!delta || delta.length === 0) return [];
    const out: JsonObject[] = [];
    for (const block of delta) {
      this.shown(role, id, block);
      out.push({ sessionUpdate: kind, messageId: id, content: block });
    }
    const [head] = out;
    if (head && isObj(u._meta)) head._meta = u._meta;
    return out;
  }

  private mergedPlan(meta: unknown): JsonObject {
    const entries: PlanEntry[] = [];
    for (const list of this.plans.values()) {
      for (const e of list) {
        const m = planEntryToV1(e);
        if (m) entries.push(m);
      }
    }
    const out: JsonObject = { sessionUpdate: 'plan', entries };
    if (isObj(meta)) out._meta = meta;
    return out;
  }
}

// ------------------------------------------------------------------------------------------ decoder

/**
 * Client side, one per session: v1 `update` payloads -> neutral updates.
 *
 * - chunks without `messageId` get minted ids, grouped the way Zed groups them: a chunk continues
 *   the current message of its role across updates that start no new content (usage, commands,
 *   session info, mode/config, plans, an update to a known tool call); a role change, a new tool
 *   call, a notice/compaction, an unknown kind or {@link V1UpdateDecoder.startTurn} starts a new
 *   message (ACP-V1-MSG-01/02);
 * - `tool_call` becomes a `tool_call_update` with every field set (it replaces the call);
 * - `tool_call_update` drops `null`s (v1 `null` = unchanged);
 * - `plan` becomes `plan_update` of plan {@link V1_PLAN_ID};
 * - unknown kinds are kept raw; a known kind with a bad body throws -32602 naming the path.
 */
export class V1UpdateDecoder implements UpdateDecoder {
  private run: { role: MessageRole; id: string } | null = null;
  /** Tool call ids seen, so an update to a known call does not end the current message. */
  private readonly toolCalls = new Set<string>();
  private readonly nonce = randomUUID().slice(0, 8);
  private minted = 0;

  constructor(private readonly validator: WireValidator | null) {}

  decode(wire: unknown): AnySessionUpdate[] {
    return decodedUpdates(this.decodeOne(updateBody(wire)));
  }

  private decodeOne(wire: JsonObject): JsonObject | undefined {
    const kind = wire.sessionUpdate;
    if (typeof kind !== 'string') {
      const f = {
        path: kind === undefined ? '' : 'sessionUpdate',
        message: kind === undefined ? "must have required property 'sessionUpdate'" : 'must be string',
      };
      throw invalidParams('params.update', f);
    }
    if (!V1_UPDATE_KINDS.has(kind)) {
      if (kind !== 'plan_update' && kind !== 'plan_removed') this.run = null;
      return this.unknown(wire, kind);
    }
    const role = isChunkKind(kind) ? CHUNK_ROLE[kind] : undefined;
    if (this.validator && !(role && isPlainTextChunk(wire, false))) {
      const f = this.validator.update(wire);
      if (f && f !== 'unknown') throw invalidParams('params.update', f);
    }
    if (role) return this.chunk(wire, role);
    if (!CONTINUES_MESSAGE.has(kind)) {
      const toolCallId = wire.toolCallId;
      const isTool = kind === 'tool_call' || kind === 'tool_call_update';
      // a new tool call is new content (a timeline entry of its own); an update to a known one is not
      if (!isTool || typeof toolCallId !== 'string' || !this.toolCalls.has(toolCallId)) this.run = null;
      if (isTool && typeof toolCallId === 'string') this.toolCalls.add(toolCallId);
    }
    switch (kind) {
      case 'tool_call': {
        const p = toolPatchFromV1(wire);
        return {
          ...p,
          sessionUpdate: 'tool_call_update',
          kind: p.kind ?? 'other',
          status: p.status ?? 'pending',
          content: p.content ?? [],
          locations: p.locations ?? [],
        };
      }
      case 'tool_call_update':
        return { ...toolPatchFromV1(wire), sessionUpdate: 'tool_call_update' };
      case 'plan': {
        const out: JsonObject = {
          sessionUpdate: 'plan_update',
          plan: { type: 'items', planId: V1_PLAN_ID, entries: wire.entries },
        };
        if (isObj(wire._meta)) out._meta = wire._meta;
        return out;
      }
      case 'config_option_update':
        return Array.isArray(wire.configOptions)
          ? { ...wire, configOptions: configOptionsFromV1(wire.configOptions) }
          : wire;
      // content blocks outside chunks and tool calls pass the same v1 -> v2 value rules
      case 'compaction_summary_chunk':
        return { ...wire, content: blockFromV1(wire.content) };
      case 'compaction_update':
        return Array.isArray(wire.summary) ? { ...wire, summary: wire.summary.map(blockFromV1) } : wire;
      default:
        // available_commands_update, current_mode_update, session_info_update, usage_update,
        // notice: the neutral shape is the v1 shape.
        return wire;
    }
  }

  /**
   * A new prompt turn begins (the client sent `session/prompt`): the next id-less chunk starts a
   * new message even when it has the role of the last one.
   */
  startTurn(): void {
    this.run = null;
  }

  private chunk(received: JsonObject, role: MessageRole): JsonObject {
    const c = received.content;
    const wire =
      isObj(c) && (c.annotations !== undefined || c.size !== undefined)
        ? { ...received, content: blockFromV1(c) }
        : received;
    const id = wire.messageId;
    if (typeof id === 'string') {
      this.run = { role, id };
      return wire;
    }
    const run = this.run;
    const messageId = run && run.role === role ? run.id : `v1-${this.nonce}-${++this.minted}`;
    this.run = { role, id: messageId };
    return { ...wire, messageId };
  }

  private unknown(wire: JsonObject, kind: string): JsonObject | undefined {
    // The unstable v1 plan variants (sent only to clients that advertised `plan`) have the neutral shape.
    if (
      kind === 'plan_update' &&
      isObj(wire.plan) &&
      typeof wire.plan.planId === 'string' &&
      typeof wire.plan.type === 'string'
    ) {
      return wire;
    }
    if (kind === 'plan_removed' && typeof wire.planId === 'string') return wire;
    if (isSharedUnstableKind(kind)) return decodeSharedUnstable(wire, this.validator);
    // A v2-only kind on a v1 connection is a peer bug; passing it on raw would make it look like
    // a well-formed neutral update, so it is ignored.
    if (KNOWN_UPDATE_KINDS.has(kind)) return undefined;
    return wire; // ACP §5.16: keep, never fail on newer kinds
  }
}

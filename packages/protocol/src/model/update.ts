import type { AnyContentBlock } from './content.js';
import type { Meta, Patch, UnknownKind } from './json.js';
import type { PlanContent } from './plan.js';
import type { ForegroundState, StopReason } from './stop-reason.js';
import type { AnyToolCallContent, ToolCallPatch } from './tool-call.js';
import type { AvailableCommand, ConfigOption } from './session.js';

/** Whose message: the three separate message-id spaces (ACP-V2-MSG-08). */
export type MessageRole = 'user' | 'agent' | 'thought';

/**
 * Whole-message upsert keyed by (role, `messageId`) (ACP-V2-MSG-03/04): `content` array
 * replaces everything stored, `[]`/`null` clears, omitted leaves it unchanged.
 */
export interface MessageUpdate {
  sessionUpdate: 'user_message' | 'agent_message' | 'agent_thought';
  messageId: string;
  content?: Patch<AnyContentBlock[]>;
  _meta?: Patch<Meta>;
}

/** Appends one block to the current content of a message (ACP-V2-MSG-05). */
export interface MessageChunk {
  sessionUpdate: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk';
  /** Always set in the model; the v1 codec mints ids for v1 chunks that have none (ACP-V1-MSG-01). */
  messageId: string;
  content: AnyContentBlock;
  /** chunk-scoped */
  _meta?: Meta | null;
}

/** One entry of a `background` snapshot (ACP-V2-BG-02). */
export type BackgroundWork =
  | { type: 'terminal'; terminalId: string; _meta?: Meta | null }
  | { type: 'tool_call'; toolCallId: string; _meta?: Meta | null }
  | { type: UnknownKind; [key: string]: unknown };

/** A JSON-RPC error object carried by an `error` stop. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Snapshot of the aggregate foreground state (v2 `state_update`). In v1 the codecs derive it:
 * `running` while a `session/prompt` is open, `idle` + `stopReason` from its response.
 */
export interface StateUpdate {
  sessionUpdate: 'state_update';
  state: ForegroundState;
  /** only meaningful with `idle` */
  stopReason?: StopReason | null;
  /** with `stopReason: "error"` */
  error?: ErrorObject | null;
  /** complete snapshot; omitted/`null` = not reported (ACP-V2-BG-01) */
  background?: BackgroundWork[] | null;
  _meta?: Meta | null;
}

export interface ToolCallUpdate extends ToolCallPatch {
  sessionUpdate: 'tool_call_update';
}

/** Appends one content item to a tool call (v2; the v1 codec re-sends the whole list). */
export interface ToolCallContentChunk {
  sessionUpdate: 'tool_call_content_chunk';
  toolCallId: string;
  content: AnyToolCallContent;
  _meta?: Meta | null;
}

/** Upsert of an Agent-owned display terminal (v2 only). */
export interface TerminalUpdate {
  sessionUpdate: 'terminal_update';
  terminalId: string;
  command?: Patch<string>;
  /** absolute */
  cwd?: Patch<string>;
  /** full snapshot (base64) that replaces all stored bytes (ACP-V2-TERM-07) */
  output?: Patch<{ data: string; _meta?: Meta | null }>;
  exitStatus?: Patch<{ exitCode?: number | null; signal?: string | null; _meta?: Meta | null }>;
  size?: Patch<{ cols: number; rows: number }>;
  capabilities?: Patch<{ cancel?: Meta | null; [key: string]: unknown }>;
  _meta?: Patch<Meta>;
}

/** Bytes appended to a display terminal; decode each chunk on its own (ACP-V2-TERM-08). */
export interface TerminalOutputChunk {
  sessionUpdate: 'terminal_output_chunk';
  terminalId: string;
  /** base64 */
  data: string;
  _meta?: Meta | null;
}

/** Replaces the plan with this `planId` (v1: the single plan, id {@link V1_PLAN_ID}). */
export interface PlanUpdate {
  sessionUpdate: 'plan_update';
  plan: PlanContent;
  _meta?: Meta | null;
}

/** Removes a plan (v2 unstable; v1 sends an empty plan). */
export interface PlanRemoved {
  sessionUpdate: 'plan_removed';
  planId: string;
  _meta?: Meta | null;
}

export interface AvailableCommandsUpdate {
  sessionUpdate: 'available_commands_update';
  availableCommands: AvailableCommand[];
  _meta?: Meta | null;
}

/** Complete configuration state (ACP-ALL-CFG-06). */
export interface ConfigOptionUpdate {
  sessionUpdate: 'config_option_update';
  configOptions: ConfigOption[];
  _meta?: Meta | null;
}

/** v1 `current_mode_update` (modes are a `category: "mode"` config option in v2). */
export interface CurrentModeUpdate {
  sessionUpdate: 'current_mode_update';
  currentModeId: string;
  _meta?: Meta | null;
}

/** Partial session info (ACP-ALL-INFO-01): omitted unchanged, `null` clears. */
export interface SessionInfoUpdate {
  sessionUpdate: 'session_info_update';
  title?: Patch<string>;
  updatedAt?: Patch<string>;
  _meta?: Patch<Meta>;
}

export interface Cost {
  amount: number;
  currency: string;
}

/** Session-level usage as a session's state holds it: the latest `usage_update` applied (ACP-ALL-USAGE-01). */
export interface UsageInfo {
  used: number;
  size: number;
  cost: Cost | undefined;
}

/** Session-level context usage and cumulative cost (ACP-ALL-USAGE-01). */
export interface UsageUpdate {
  sessionUpdate: 'usage_update';
  used: number;
  size: number;
  cost?: Patch<Cost>;
  _meta?: Meta | null;
}

/** Advisory live event, never history (ACP-V1-NOTICE-01). */
export interface Notice {
  sessionUpdate: 'notice';
  severity: 'info' | 'warning' | 'error' | (string & {});
  title: string;
  description?: string | null;
  _meta?: Meta | null;
}

export interface CompactionUpdate {
  sessionUpdate: 'compaction_update';
  compactionId: string;
  status: 'in_progress' | 'completed' | 'failed' | 'cancelled' | (string & {});
  summary?: Patch<AnyContentBlock[]>;
  /** human-readable error details (a string on the wire in both versions) */
  error?: Patch<string>;
  _meta?: Patch<Meta>;
}

export interface CompactionSummaryChunk {
  sessionUpdate: 'compaction_summary_chunk';
  compactionId: string;
  content: AnyContentBlock;
  _meta?: Meta | null;
}

/** What a parent mirrors of a child's foreground state (a `state_update` body without its tag). */
export type SubagentStateReport = Omit<StateUpdate, 'sessionUpdate'>;

/**
 * Unstable (both versions): the enclosing session owns a child session `sessionId` (a subagent).
 * Patch semantics: omitted keeps, `null` clears, a value replaces; `state` replaces the whole
 * snapshot. The first one for an unknown `sessionId` announces the child.
 */
export interface SubagentUpdate {
  sessionUpdate: 'subagent_update';
  sessionId: string;
  title?: Patch<string>;
  description?: Patch<string>;
  /** Client-initiated mutations permitted on the child (`cancel: {}` = may be cancelled). */
  capabilities?: Patch<{ cancel?: Meta | null; _meta?: Meta | null }>;
  state?: Patch<SubagentStateReport>;
  /** v2: absolute; v1: any string */
  cwd?: Patch<string>;
  additionalDirectories?: Patch<string[]>;
  _meta?: Patch<Meta>;
}

/** Unstable (both versions): upsert of an inter-session message, keyed by `messageId`. */
export interface SessionMessage {
  sessionUpdate: 'session_message';
  messageId: string;
  senderSessionId?: Patch<string>;
  recipientSessionId?: Patch<string>;
  senderMessageId?: Patch<string>;
  recipientMessageId?: Patch<string>;
  /** an array replaces all content, `null` clears, omitted keeps */
  content?: Patch<AnyContentBlock[]>;
  _meta?: Patch<Meta>;
}

/** Unstable (both versions): appends one block to an inter-session message. */
export interface SessionMessageChunk {
  sessionUpdate: 'session_message_chunk';
  messageId: string;
  content: AnyContentBlock;
  /** chunk-scoped */
  _meta?: Meta | null;
}

/**
 * An update kind this version of acp-kit does not know (a newer protocol or a `_` extension).
 * Kept raw so stores, proxies and bridges can pass it on (ACP-V2-EXT-03).
 *
 * `sessionUpdate` is typed {@link UnknownKind} (`never`) so that checking it against a known kind
 * narrows {@link AnySessionUpdate} to that kind; reach this member with {@link isUnknownUpdate}
 * (or the `default` branch of a `switch`) and read the kind with `String(u.sessionUpdate)`.
 */
export interface UnknownUpdate {
  sessionUpdate: UnknownKind;
  [key: string]: unknown;
}

/** The same as {@link UnknownUpdate}. */
export type UnknownSessionUpdate = UnknownUpdate;

/** The version-neutral `session/update` payload both runtimes speak. */
export type SessionUpdate =
  | MessageUpdate
  | MessageChunk
  | StateUpdate
  | ToolCallUpdate
  | ToolCallContentChunk
  | TerminalUpdate
  | TerminalOutputChunk
  | PlanUpdate
  | PlanRemoved
  | AvailableCommandsUpdate
  | ConfigOptionUpdate
  | CurrentModeUpdate
  | SessionInfoUpdate
  | UsageUpdate
  | Notice
  | CompactionUpdate
  | CompactionSummaryChunk
  | SubagentUpdate
  | SessionMessage
  | SessionMessageChunk;

/** What a receiver may see: a known update or a preserved unknown one. */
export type AnySessionUpdate = SessionUpdate | UnknownUpdate;

/** The names of all known neutral update kinds. */
export const KNOWN_UPDATE_KINDS: ReadonlySet<string> = new Set<SessionUpdate['sessionUpdate']>([
  'user_message',
  'agent_message',
  'agent_thought',
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'state_update',
  'tool_call_update',
  'tool_call_content_chunk',
  'terminal_update',
  'terminal_output_chunk',
  'plan_update',
  'plan_removed',
  'available_commands_update',
  'config_option_update',
  'current_mode_update',
  'session_info_update',
  'usage_update',
  'notice',
  'compaction_update',
  'compaction_summary_chunk',
  'subagent_update',
  'session_message',
  'session_message_chunk',
]);

/** The unstable kinds both versions' `schema.unstable.json` carry with the same shape (checked on decode). */
export const UNSTABLE_SHARED_UPDATE_KINDS: ReadonlySet<string> = new Set<SessionUpdate['sessionUpdate']>([
  'subagent_update',
  'session_message',
  'session_message_chunk',
]);

/** True for the update kinds this version of acp-kit knows. */
export function isKnownUpdate(u: AnySessionUpdate): u is SessionUpdate {
  return KNOWN_UPDATE_KINDS.has(u.sessionUpdate);
}

/** True for an update kind this version of acp-kit does not know (kept raw, ACP-V2-EXT-03). */
export function isUnknownUpdate(u: AnySessionUpdate): u is UnknownUpdate {
  return !KNOWN_UPDATE_KINDS.has(u.sessionUpdate);
}

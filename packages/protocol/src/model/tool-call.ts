import type { AnyContentBlock } from './content.js';
import type { Meta, Patch, UnknownKind } from './json.js';

/** v1 closed set; v2 open (custom values start with `_`, ACP-V2-TOOL-06). */
export type ToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'switch_mode'
  | 'other'
  | (string & {});

/**
 * Tool call status. `cancelled` and `paused` exist only in v2 (ACP-V2-TOOL-07);
 * the v1 codec degrades them (see codec/README.md).
 */
export type ToolCallStatus =
  'pending' | 'in_progress' | 'paused' | 'completed' | 'failed' | 'cancelled' | (string & {});

export interface ToolCallLocation {
  /** absolute */
  path: string;
  /** 1-based (ACP-ALL-RPC-08) */
  line?: number | null;
  _meta?: Meta | null;
}

/** Regular content produced by a tool. */
export interface ToolCallContentBlock {
  type: 'content';
  content: AnyContentBlock;
  _meta?: Meta | null;
}

/**
 * A whole-text edit of one file: v1's native diff. The v2 codec sends it as a structured
 * `changes` list (add/modify) plus a `git_patch`.
 */
export interface ToolCallTextDiff {
  type: 'diff';
  /** absolute */
  path: string;
  /** `null` for a new file */
  oldText: string | null;
  newText: string;
  _meta?: Meta | null;
}

/** One change of a structured (v2) diff. */
export type FileChange =
  | {
      operation: 'add' | 'delete' | 'modify';
      path: string;
      fileType?: string | null;
      mimeType?: string | null;
      _meta?: Meta | null;
    }
  | {
      operation: 'move' | 'copy';
      oldPath: string;
      path: string;
      fileType?: string | null;
      mimeType?: string | null;
      _meta?: Meta | null;
    }
  | { operation: UnknownKind; [key: string]: unknown };

/**
 * A structured diff as v2 sends it (`changes` authoritative, optional patch text).
 * The v1 codec degrades it to a text content block (v1 can only carry old/new text).
 */
export interface ToolCallFileChanges {
  type: 'file_changes';
  changes: FileChange[];
  patch?: { format: 'git_patch' | (string & {}); text: string; _meta?: Meta | null } | null;
  _meta?: Meta | null;
}

/**
 * A terminal embedded in a tool call. In v1 it names a Client-owned terminal
 * (`terminal/create`); in v2 an Agent-owned display terminal (`terminal_update`).
 * Never translated between versions by shape (ACP-V2-TERM-12).
 */
export interface ToolCallTerminal {
  type: 'terminal';
  terminalId: string;
  _meta?: Meta | null;
}

/** Tool call content of a type this version of acp-kit does not know (kept raw); see {@link UnknownKind}. */
export interface UnknownToolCallContent {
  type: UnknownKind;
  [key: string]: unknown;
}

export type ToolCallContent = ToolCallContentBlock | ToolCallTextDiff | ToolCallFileChanges | ToolCallTerminal;
export type AnyToolCallContent = ToolCallContent | UnknownToolCallContent;

const KNOWN_TOOL_CALL_CONTENT: ReadonlySet<string> = new Set<ToolCallContent['type']>([
  'content',
  'diff',
  'file_changes',
  'terminal',
]);

/** True for tool call content of a type this version of acp-kit does not know (kept raw). */
export function isUnknownToolCallContent(c: AnyToolCallContent): c is UnknownToolCallContent {
  return !KNOWN_TOOL_CALL_CONTENT.has(c.type);
}

/**
 * A tool call upsert (the neutral form of v1 `tool_call` / `tool_call_update` and
 * v2 `tool_call_update`). Patch semantics (ACP-V2-TOOL-03): omitted = unchanged,
 * `null` = clear (status -> pending, kind -> other), value = replace; arrays replace wholesale.
 * The first upsert for an unseen id creates the call.
 */
export interface ToolCallPatch {
  toolCallId: string;
  title?: Patch<string>;
  /** programmatic tool name */
  name?: Patch<string>;
  kind?: Patch<ToolKind>;
  status?: Patch<ToolCallStatus>;
  content?: Patch<AnyToolCallContent[]>;
  locations?: Patch<ToolCallLocation[]>;
  rawInput?: unknown;
  rawOutput?: unknown;
  /** v2 per-entity controls, e.g. `{ cancel: {} }` while the call may be cancelled. */
  capabilities?: Patch<{ cancel?: Meta | null; [key: string]: unknown }>;
  _meta?: Patch<Meta>;
}

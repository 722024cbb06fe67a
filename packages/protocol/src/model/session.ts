import type { AnyContentBlock } from './content.js';
import type { Meta, UnknownKind } from './json.js';
import type { ToolCallPatch } from './tool-call.js';

/** `name`/`version` of a peer (v1 `clientInfo`/`agentInfo`, v2 `info`). */
export interface Implementation {
  name: string;
  version: string;
  title?: string | null;
  _meta?: Meta | null;
}

/** A marker capability: present (an object) = supported; absent/`null` = not (ACP-V2-CAP-01). */
export type Marker = Meta;

/**
 * What an agent supports, version-neutral. The codecs map it onto v1 booleans/objects and
 * v2 object markers (ACP-V1-CAP-02, ACP-V2-CAP-01).
 */
export interface AgentCapabilities {
  /** v1 `loadSession` (v2 has no `session/load`; replay is `session/resume` + `replayFrom`) */
  loadSession?: boolean;
  prompt?: { image?: boolean; audio?: boolean; embeddedContext?: boolean };
  /** `acp`: MCP servers over the ACP connection itself (unstable MCP-over-ACP RFD; v1 `mcpCapabilities.acp`, v2 `session.mcp.acp`) */
  mcp?: { stdio?: boolean; http?: boolean; sse?: boolean; acp?: boolean };
  session?: {
    list?: boolean;
    resume?: boolean;
    close?: boolean;
    delete?: boolean;
    additionalDirectories?: boolean;
    /** `session/fork` (unstable in both versions: `sessionCapabilities.fork` / `session.fork`) */
    fork?: boolean;
    /** `session/archive` + `session/unarchive` and the `session/list` archive filter (unstable) */
    archive?: boolean;
    /** `session/status` (unstable) */
    status?: boolean;
    /** `session/set_title` (unstable) */
    title?: boolean;
  };
  /** v1 `auth.logout` */
  logout?: boolean;
  /** `auth/status` + `auth/status_update` (unstable, both versions: `auth.status`) */
  authStatus?: boolean;
  /** `providers/list|set|disable` (unstable, both versions: `providers`) */
  providers?: boolean;
  _meta?: Meta | null;
}

/** What a client supports, version-neutral. */
export interface ClientCapabilities {
  /** v1 only */
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  /** v1 only: client-executed terminals */
  terminal?: boolean;
  /** terminal-login auth */
  authTerminal?: boolean;
  elicitation?: { form?: boolean; url?: boolean };
  /** v1 `session.configOptions.boolean` (always true in v2) */
  booleanConfigOptions?: boolean;
  /** v1 `session.notices` (always true in v2) */
  notices?: boolean;
  /** v1 `session.compaction` (always true in v2) */
  compaction?: boolean;
  /** v1 unstable `subagents` (subagent updates and session messages; baseline in v2) */
  subagents?: boolean;
  _meta?: Meta | null;
}

/** An authentication method (v1 `id`, v2 `methodId`). */
export interface AuthMethod {
  methodId: string;
  name: string;
  description?: string | null;
  /** `agent` (default), `terminal`, or a custom `_` type */
  type?: 'agent' | 'terminal' | (string & {});
  /** terminal methods */
  args?: string[];
  env?: Record<string, string>;
  _meta?: Meta | null;
}

export interface McpServerStdio {
  type: 'stdio';
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  _meta?: Meta | null;
}
export interface McpServerHttp {
  type: 'http' | 'sse';
  name: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
  _meta?: Meta | null;
}
/**
 * An MCP server served over the ACP connection itself (unstable MCP-over-ACP RFD): the agent
 * reaches it with `mcp/message` requests naming `serverId`, which the providing component made up
 * and answers (the 2.4.0 schemas' `McpServerAcp`, same shape in v1 and v2).
 */
export interface McpServerAcp {
  type: 'acp';
  name: string;
  serverId: string;
  _meta?: Meta | null;
}
export type McpServer =
  McpServerStdio | McpServerHttp | McpServerAcp | { type: UnknownKind; name: string; [key: string]: unknown };

export interface ConfigSelectOption {
  value: string;
  name: string;
  description?: string | null;
  _meta?: Meta | null;
}
export interface ConfigSelectGroup {
  groupId: string;
  name: string;
  options: ConfigSelectOption[];
  _meta?: Meta | null;
}

/** A `select` configuration option (one value from a list). */
export interface SelectConfigOption {
  type: 'select';
  configId: string;
  name: string;
  description?: string | null;
  category?: 'mode' | 'model' | 'model_config' | 'thought_level' | (string & {}) | null;
  currentValue: string;
  options: Array<ConfigSelectOption | ConfigSelectGroup>;
  _meta?: Meta | null;
}

/** A `boolean` configuration option (on/off). */
export interface BooleanConfigOption {
  type: 'boolean';
  configId: string;
  name: string;
  description?: string | null;
  category?: string | null;
  currentValue: boolean;
  _meta?: Meta | null;
}

/** A configuration option of a type this version of acp-kit does not know (kept raw; see {@link UnknownKind}). */
export interface UnknownConfigOption {
  type: UnknownKind;
  configId: string;
  name: string;
  [key: string]: unknown;
}

/** A session configuration option (v1 `id`, v2 `configId`). Modes are `category: "mode"`. */
export type ConfigOption = SelectConfigOption | BooleanConfigOption | UnknownConfigOption;

/** A slash command (ACP-ALL-CMD-02). */
export interface AvailableCommand {
  name: string;
  description: string;
  /** free-text input with a hint, or `null` for none */
  input?: { hint: string } | null;
  _meta?: Meta | null;
}

/** v1 session modes (`modes` in setup responses). */
export interface SessionModeState {
  currentModeId: string;
  availableModes: Array<{ id: string; name: string; description?: string | null; _meta?: Meta | null }>;
}

/** An entry of `session/list` (ACP-ALL-LIST-01). */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  title?: string | null;
  updatedAt?: string | null;
  additionalDirectories?: string[];
  /** unstable: whether the session is archived; agents advertising `session.archive` set it on every entry */
  archived?: boolean | null;
  _meta?: Meta | null;
}

export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always' | (string & {});

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: PermissionOptionKind;
  _meta?: Meta | null;
}

/** What a permission request is about (v2 `subject`; v1 always a tool call). */
export type PermissionSubject =
  | { type: 'tool_call'; toolCall: ToolCallPatch; _meta?: Meta | null }
  | {
      type: 'command';
      command: string;
      cwd: string;
      toolCallId?: string | null;
      terminalId?: string | null;
      _meta?: Meta | null;
    }
  | { type: UnknownKind; [key: string]: unknown };

/** `session/request_permission`, version-neutral (v1 requires a tool call, v2 a title). */
export interface PermissionRequest {
  sessionId: string;
  title: string;
  description?: string | null;
  subject?: PermissionSubject | null;
  options: PermissionOption[];
  _meta?: Meta | null;
}

/** The answer to a permission request: `outcome` narrows (an unknown outcome is typed {@link UnknownKind}). */
export type PermissionOutcome =
  | { outcome: 'cancelled' }
  | { outcome: 'selected'; optionId: string }
  | { outcome: UnknownKind; [key: string]: unknown };

/** The prompt a client sends (ACP-ALL-CONT-01). */
export type Prompt = AnyContentBlock[];

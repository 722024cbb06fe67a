import type {
  AuthStatus,
  DisableProviderRequest,
  ListProvidersResponse,
  SetProviderRequest,
} from './auth-providers.js';
import type {
  CompleteElicitationNotification,
  CreateElicitationRequest,
  CreateElicitationResponse,
} from './elicitation.js';
import type { Meta, UnknownKind } from './json.js';
import type { StopReason } from './stop-reason.js';
import type { ErrorObject, StateUpdate } from './update.js';
import type {
  AgentCapabilities,
  AuthMethod,
  AvailableCommand,
  ClientCapabilities,
  ConfigOption,
  Implementation,
  McpServer,
  PermissionOutcome,
  PermissionRequest,
  Prompt,
  SessionInfo,
  SessionModeState,
} from './session.js';

/**
 * Neutral method names. Most are the wire names of both versions; the codecs translate the few
 * that differ (`authenticate` = v2 `auth/login`, `logout` = v2 `auth/logout`) and report the
 * ones a version lacks (`session/load`, `session/set_mode`, `fs/*`, `terminal/*` are v1 only;
 * `tool_call/cancel`, `terminal/cancel` v2 only).
 */
export const Methods = {
  initialize: 'initialize',
  authenticate: 'authenticate',
  logout: 'logout',
  sessionNew: 'session/new',
  sessionLoad: 'session/load',
  sessionResume: 'session/resume',
  sessionList: 'session/list',
  sessionClose: 'session/close',
  sessionDelete: 'session/delete',
  sessionSetMode: 'session/set_mode',
  sessionSetConfigOption: 'session/set_config_option',
  sessionPrompt: 'session/prompt',
  sessionCancel: 'session/cancel',
  sessionUpdate: 'session/update',
  requestPermission: 'session/request_permission',
  fsReadTextFile: 'fs/read_text_file',
  fsWriteTextFile: 'fs/write_text_file',
  terminalCreate: 'terminal/create',
  terminalOutput: 'terminal/output',
  terminalWaitForExit: 'terminal/wait_for_exit',
  terminalKill: 'terminal/kill',
  terminalRelease: 'terminal/release',
  toolCallCancel: 'tool_call/cancel',
  terminalCancel: 'terminal/cancel',
  elicitationCreate: 'elicitation/create',
  elicitationComplete: 'elicitation/complete',
  cancelRequest: '$/cancel_request',
  sessionFork: 'session/fork',
  sessionArchive: 'session/archive',
  sessionUnarchive: 'session/unarchive',
  sessionStatus: 'session/status',
  sessionSetTitle: 'session/set_title',
  authStatus: 'auth/status',
  authStatusUpdate: 'auth/status_update',
  providersList: 'providers/list',
  providersSet: 'providers/set',
  providersDisable: 'providers/disable',
  /** unstable MCP-over-ACP: agent-to-client request, and the client's request-scoped notification */
  mcpMessage: 'mcp/message',
} as const;
/**
 * @deprecated Includes names that are no ACP request at all (`$/cancel_request`); use
 * {@link NeutralMethod} (or {@link AgentMethod} / {@link ClientMethod}) instead.
 */
export type MethodName = (typeof Methods)[keyof typeof Methods];

export interface InitializeRequest {
  protocolVersion: number;
  clientInfo?: Implementation | null;
  clientCapabilities: ClientCapabilities;
  _meta?: Meta | null;
}
export interface InitializeResponse {
  protocolVersion: number;
  agentInfo?: Implementation | null;
  agentCapabilities: AgentCapabilities;
  authMethods: AuthMethod[];
  _meta?: Meta | null;
}
export interface AuthenticateRequest {
  methodId: string;
  _meta?: Meta | null;
}
export interface NewSessionRequest {
  cwd: string;
  mcpServers: McpServer[];
  additionalDirectories?: string[];
  _meta?: Meta | null;
}
/** Setup results: `modes` is v1 only, `availableCommands` v2 only (v1 sends an update instead). */
export interface SessionSetupResult {
  configOptions?: ConfigOption[];
  modes?: SessionModeState | null;
  availableCommands?: AvailableCommand[];
  _meta?: Meta | null;
}
export interface NewSessionResponse extends SessionSetupResult {
  sessionId: string;
}
/** v1 `session/load`: full replay before the response (ACP-V1-LOAD-02/03). */
export interface LoadSessionRequest {
  sessionId: string;
  cwd: string;
  mcpServers: McpServer[];
  additionalDirectories?: string[];
  _meta?: Meta | null;
}
/** `session/resume`; `replayFrom` is v2 only (ACP-V2-RESUME-02/03). */
export interface ResumeSessionRequest {
  sessionId: string;
  cwd: string;
  mcpServers?: McpServer[];
  additionalDirectories?: string[];
  replayFrom?: { type: 'start' } | { type: UnknownKind; [key: string]: unknown } | null;
  _meta?: Meta | null;
}
/**
 * Which sessions `session/list` returns by archive state (unstable): `exclude` (the default),
 * `include`, `only`, or a custom/future value, which an agent that does not support it answers
 * with -32602 rather than reading it as `exclude`.
 */
export type SessionArchiveFilter = 'exclude' | 'include' | 'only' | (string & {});
export interface ListSessionsRequest {
  cwd?: string | null;
  cursor?: string | null;
  /** unstable: only with the agent's `session.archive` capability */
  archived?: SessionArchiveFilter | null;
  _meta?: Meta | null;
}
export interface ListSessionsResponse {
  sessions: SessionInfo[];
  nextCursor?: string | null;
  _meta?: Meta | null;
}
export interface SessionIdRequest {
  sessionId: string;
  _meta?: Meta | null;
}
/** `session/fork` (unstable): a new session with the source session's history. */
export interface ForkSessionRequest {
  /** the session to fork */
  sessionId: string;
  cwd: string;
  mcpServers?: McpServer[];
  additionalDirectories?: string[];
  _meta?: Meta | null;
}
/** The fork's id and its setup (as `session/new` answers). */
export type ForkSessionResponse = NewSessionResponse;
/**
 * `session/status` (unstable): `open` = the agent has the session in memory, `saved` = it can
 * resume it. A value the client does not know reads as `saved`.
 */
export type SessionStatus = 'open' | 'saved' | (string & {});
export interface SessionStatusResponse {
  status: SessionStatus;
  /**
   * v2 only: the foreground state snapshot (as in `state_update`, without the tag). Absent means
   * not reported, never `idle`.
   */
  state?: Omit<StateUpdate, 'sessionUpdate'> | null;
  _meta?: Meta | null;
}
/** `session/set_title` (unstable). */
export interface SetSessionTitleRequest {
  sessionId: string;
  title: string;
  _meta?: Meta | null;
}
/** The title the agent stored (it may have normalized the requested one). */
export interface SetSessionTitleResponse {
  title: string;
  _meta?: Meta | null;
}
export interface SetConfigOptionRequest {
  sessionId: string;
  configId: string;
  value: string | boolean;
  _meta?: Meta | null;
}
export interface SetConfigOptionResponse {
  configOptions: ConfigOption[];
  _meta?: Meta | null;
}
export interface SetModeRequest {
  sessionId: string;
  modeId: string;
  _meta?: Meta | null;
}
export interface PromptRequest {
  sessionId: string;
  prompt: Prompt;
  _meta?: Meta | null;
}
/** v1 answers at the end of the turn with `stopReason`; v2 at insertion with `messageId`. */
/**
 * Token usage of one prompt turn (unstable, v1 `PromptResponse.usage`; the end-turn token usage
 * RFD). v2 answers a prompt at insertion, so it has no place for it: there the turn's usage is
 * what `usage_update` reports.
 */
export interface TurnUsage {
  totalTokens: number;
  inputTokens: number;
  outputTokens: number;
  thoughtTokens?: number | null;
  cachedReadTokens?: number | null;
  cachedWriteTokens?: number | null;
  _meta?: Meta | null;
}

export interface PromptResponse {
  stopReason?: StopReason;
  /** v1 (unstable): the turn's token usage */
  usage?: TurnUsage | null;
  messageId?: string;
  /**
   * Agent side, with `stopReason: "error"`: what went wrong. The v1 codec answers the prompt with
   * it as a JSON-RPC error (v1 has no `error` stop); v2 reports it in the idle `state_update`.
   */
  error?: ErrorObject | null;
  _meta?: Meta | null;
}
export type RequestPermissionRequest = PermissionRequest;
export interface RequestPermissionResponse {
  outcome: PermissionOutcome;
  _meta?: Meta | null;
}
export interface CancelToolCallRequest {
  sessionId: string;
  toolCallId: string;
  _meta?: Meta | null;
}
export interface CancelTerminalRequest {
  sessionId: string;
  terminalId: string;
  _meta?: Meta | null;
}

// ---- v1 client services (same shape on the wire; no codec translation) ----

export interface ReadTextFileRequest {
  sessionId: string;
  path: string;
  line?: number | null;
  limit?: number | null;
  _meta?: Meta | null;
}
export interface ReadTextFileResponse {
  content: string;
  _meta?: Meta | null;
}
export interface WriteTextFileRequest {
  sessionId: string;
  path: string;
  content: string;
  _meta?: Meta | null;
}
export interface CreateTerminalRequest {
  sessionId: string;
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  cwd?: string | null;
  outputByteLimit?: number | null;
  _meta?: Meta | null;
}
export interface CreateTerminalResponse {
  terminalId: string;
  _meta?: Meta | null;
}
export interface TerminalRequest {
  sessionId: string;
  terminalId: string;
  _meta?: Meta | null;
}
export interface TerminalExitStatus {
  exitCode?: number | null;
  signal?: string | null;
  _meta?: Meta | null;
}
export interface TerminalOutputResponse {
  output: string;
  truncated: boolean;
  exitStatus?: TerminalExitStatus | null;
  _meta?: Meta | null;
}
export type WaitForTerminalExitResponse = TerminalExitStatus;

// ---- MCP over ACP (unstable; schema.unstable.json `MessageMcpRequest`/`Response`/`Notification`) ----

/**
 * One inner MCP request carried to the component that declared `serverId` (agent to client).
 * `requestId` is the caller's inner MCP request id (a string, distinct from the outer JSON-RPC id).
 */
export interface McpMessageRequest {
  serverId: string;
  requestId: string;
  method: string;
  params?: Record<string, unknown> | null;
  _meta?: Meta | null;
}
/** An inner MCP error: its code is an MCP code, never an ACP one. */
export interface McpErrorObject {
  code: number;
  message: string;
  data?: unknown;
  [key: string]: unknown;
}
/** The one inner MCP outcome of a successful `mcp/message` response: `result` (may be `null`) or `error`. */
export type McpMessageResponse =
  { result: unknown; _meta?: Meta | null } | { error: McpErrorObject; _meta?: Meta | null };
/** A notification of an active inner request (progress, ...), from the serving side to the caller. */
export type McpMessageNotification = McpMessageRequest;

/** A result with nothing in it (`{}` on the wire; v1 also tolerates `null`). */
export interface EmptyResult {
  _meta?: Meta | null;
}

/**
 * Requests a client sends to an agent, by neutral method name: what goes in and what comes out,
 * in the neutral model (the codecs translate to and from each version's wire shape). The one
 * table the client's calls, the codecs and the agent's dispatch are typed through.
 */
export interface AgentMethods {
  initialize: { params: InitializeRequest; result: InitializeResponse };
  authenticate: { params: AuthenticateRequest; result: EmptyResult };
  logout: { params: EmptyResult; result: EmptyResult };
  'session/new': { params: NewSessionRequest; result: NewSessionResponse };
  'session/load': { params: LoadSessionRequest; result: SessionSetupResult };
  'session/resume': { params: ResumeSessionRequest; result: SessionSetupResult };
  'session/list': { params: ListSessionsRequest; result: ListSessionsResponse };
  'session/close': { params: SessionIdRequest; result: EmptyResult };
  'session/delete': { params: SessionIdRequest; result: EmptyResult };
  'session/set_mode': { params: SetModeRequest; result: EmptyResult };
  'session/set_config_option': { params: SetConfigOptionRequest; result: SetConfigOptionResponse };
  'session/prompt': { params: PromptRequest; result: PromptResponse };
  'tool_call/cancel': { params: CancelToolCallRequest; result: EmptyResult };
  'terminal/cancel': { params: CancelTerminalRequest; result: EmptyResult };
  'session/fork': { params: ForkSessionRequest; result: ForkSessionResponse };
  'session/archive': { params: SessionIdRequest; result: EmptyResult };
  'session/unarchive': { params: SessionIdRequest; result: EmptyResult };
  'session/status': { params: SessionIdRequest; result: SessionStatusResponse };
  'session/set_title': { params: SetSessionTitleRequest; result: SetSessionTitleResponse };
  /** unstable, gated by the agent's `auth.status` (never refused with auth_required) */
  'auth/status': { params: EmptyResult; result: AuthStatus };
  /** unstable, gated by the agent's `providers` */
  'providers/list': { params: EmptyResult; result: ListProvidersResponse };
  'providers/set': { params: SetProviderRequest; result: EmptyResult };
  'providers/disable': { params: DisableProviderRequest; result: EmptyResult };
}

/** Notifications a client sends to an agent, by neutral method name: their params. */
export interface AgentNotifications {
  'session/cancel': SessionIdRequest;
  /** unstable MCP-over-ACP: a notification of an inner request the agent made (the client serves the server) */
  'mcp/message': McpMessageNotification;
}

/** Requests an agent sends to a client (v1 client services and permission questions). */
export interface ClientMethods {
  'session/request_permission': { params: RequestPermissionRequest; result: RequestPermissionResponse };
  'fs/read_text_file': { params: ReadTextFileRequest; result: ReadTextFileResponse };
  'fs/write_text_file': { params: WriteTextFileRequest; result: EmptyResult };
  'terminal/create': { params: CreateTerminalRequest; result: CreateTerminalResponse };
  'terminal/output': { params: TerminalRequest; result: TerminalOutputResponse };
  'terminal/wait_for_exit': { params: TerminalRequest; result: WaitForTerminalExitResponse };
  'terminal/kill': { params: TerminalRequest; result: EmptyResult };
  'terminal/release': { params: TerminalRequest; result: EmptyResult };
  /** gated per mode by the client's `elicitation.form` / `.url` (ACP-ALL-ELIC-01) */
  'elicitation/create': { params: CreateElicitationRequest; result: CreateElicitationResponse };
  /** unstable MCP-over-ACP: one inner MCP request to a server the client declared with `type: "acp"` */
  'mcp/message': { params: McpMessageRequest; result: McpMessageResponse };
}

/** Notifications an agent sends to a client, by neutral method name (besides `session/update`): their params. */
export interface ClientNotifications {
  /** a url elicitation finished out of band (ACP-ALL-ELIC-09) */
  'elicitation/complete': CompleteElicitationNotification;
  /** unstable: the agent's auth state changed (only from agents advertising `auth.status`) */
  'auth/status_update': AuthStatus;
}

/** A request a client sends to an agent. */
export type AgentMethod = keyof AgentMethods;
/** A request an agent sends to a client. */
export type ClientMethod = keyof ClientMethods;
/** A request in either direction. */
export type RequestMethod = AgentMethod | ClientMethod;
/** Every neutral method a codec maps (requests of both directions and the notifications of both roles). */
export type NeutralMethod = RequestMethod | keyof AgentNotifications | keyof ClientNotifications;

type AllRequests = AgentMethods & ClientMethods;
/** The neutral params of a method. */
export type ParamsOf<M extends NeutralMethod> = M extends RequestMethod
  ? AllRequests[M]['params']
  : M extends keyof AgentNotifications
    ? AgentNotifications[M]
    : M extends keyof ClientNotifications
      ? ClientNotifications[M]
      : never;
/** The neutral result of a request. */
export type ResultOf<M extends RequestMethod> = AllRequests[M]['result'];

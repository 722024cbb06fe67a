import type {
  TurnUsage,
  AgentCapabilities,
  AnyContentBlock,
  AuthMethod,
  AvailableCommand,
  ClientCapabilities,
  ConfigOption,
  ErrorObject,
  Implementation,
  McpServer,
  PermissionOption,
  PermissionOutcome,
  PermissionSubject,
  SessionUpdate,
  StopReason,
  AnySessionUpdate,
  CreateTerminalRequest,
  TerminalExitStatus,
  TerminalOutputResponse,
  CreateElicitationResponse,
} from '@acp-kit/protocol';
import type {
  ElicitationMode,
  FormElicitationQuestion,
  UrlElicitationAnswer,
  UrlElicitationQuestion,
} from './elicitation.js';
import type { AgentAuthStatusSource, AgentProviders } from './auth-providers.js';
import type { UnstableSessionMethods } from './unstable-sessions.js';
import type { McpOverAcpChannel } from './mcp-over-acp.js';

/** What the runtime knows about the connected client. */
export interface ClientPeerInfo {
  /** The negotiated protocol version of this connection. */
  protocolVersion: 1 | 2;
  info: Implementation | null;
  capabilities: ClientCapabilities;
}

/** A v1 client-owned terminal (`terminal/*`), available when the client advertised `terminal`. */
export interface ClientTerminal {
  readonly terminalId: string;
  output(): Promise<TerminalOutputResponse>;
  waitForExit(signal?: AbortSignal): Promise<TerminalExitStatus>;
  kill(): Promise<void>;
  release(): Promise<void>;
}

/** The client's services a tool may use (v1 only; `undefined` when not offered, ACP-V1-FS-01, ACP-V1-TERM-01). */
export interface ClientServices {
  readTextFile?(path: string, options?: { line?: number; limit?: number; signal?: AbortSignal }): Promise<string>;
  writeTextFile?(path: string, content: string, options?: { signal?: AbortSignal }): Promise<void>;
  createTerminal?(
    request: Omit<CreateTerminalRequest, 'sessionId'>,
    options?: { signal?: AbortSignal },
  ): Promise<ClientTerminal>;
}

/** A permission question, version-neutral (the runtime shapes it for v1/v2). */
export interface PermissionQuestion {
  title: string;
  description?: string | null;
  subject?: PermissionSubject | null;
  options: PermissionOption[];
}

/** One session as the agent author sees it. */
export interface AgentSession {
  readonly sessionId: string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  readonly mcpServers: readonly McpServer[];
  readonly client: ClientPeerInfo;
  readonly clientServices: ClientServices;
  /**
   * The MCP servers the client serves over this connection (`mcpServers` entries of `type: "acp"`,
   * unstable MCP-over-ACP): send their inner requests here. Present on sessions of acp-kit's runtime.
   */
  readonly mcpOverAcp?: McpOverAcpChannel;
  /** Current config options (modes are a `category: "mode"` option). */
  readonly configOptions: readonly ConfigOption[];
  /** Session-scoped state the author may keep (e.g. remembered "always" permission answers). */
  readonly data: Map<string, unknown>;
  /**
   * Sends (and persists) an update outside a turn, e.g. `available_commands_update`. The runtime
   * owns `update` from then on (stores may keep it by reference): do not mutate it afterwards.
   */
  send(update: SessionUpdate): void;
  /**
   * Mints an id unique in this session, also across agent restarts (`prefix-<n>` in a new session,
   * `prefix-<epoch>.<n>` once restored), e.g. for tool calls and messages.
   */
  newId(prefix: string): string;
  /**
   * Registers how to cancel a running tool call (v2 `tool_call/cancel`, ACP-V2-TOOL-11). The runtime
   * answers `{}` after calling `cancel`; the author then sends the final `tool_call_update`. Unknown
   * ids and calls already reported final (`completed`/`failed`/`cancelled`) get -32602. Returns an
   * unregister function. Advertise it on the wire with `capabilities: { cancel: {} }` on the call.
   */
  onCancelToolCall?(toolCallId: string, cancel: () => void | Promise<void>): () => void;
  /** Same for an Agent-owned display terminal (v2 `terminal/cancel`); dropped once `exitStatus` is sent. */
  onCancelTerminal?(terminalId: string, cancel: () => void | Promise<void>): () => void;
  /**
   * Whether the client advertised elicitation `mode` (ACP-ALL-ELIC-01): ask {@link Turn.elicit} /
   * {@link Turn.elicitUrl} only then, and fall back gracefully otherwise (ACP-ALL-ELIC-02).
   */
  supportsElicitation(mode: ElicitationMode): boolean;
  /**
   * A url elicitation the user accepted has finished out of band: sends `elicitation/complete` to
   * the client that was asked (ACP-ALL-ELIC-09). `false` (nothing sent) for an id that is not
   * outstanding (never asked, declined, cancelled, or completed already).
   */
  completeElicitation(elicitationId: string): boolean;
}

/** One prompt turn (v1) / foreground work started by a prompt (v2). */
export interface Turn {
  readonly session: AgentSession;
  readonly prompt: readonly AnyContentBlock[];
  /** The agent-minted id of the inserted user message. */
  readonly userMessageId: string;
  /** Fires on `session/cancel`, `session/close` or when the connection ends. */
  readonly signal: AbortSignal;
  /**
   * Sends an update belonging to this turn. Persisted before it is sent; silently dropped once the
   * turn has ended (nothing of a turn is sent after its end, ACP-V1-CANCEL-07, ACP-V2-CANCEL-07).
   * Resolves when the transport can take more (await it in tight loops for backpressure).
   * The runtime owns `update` from then on (stores may keep it by reference): do not mutate it
   * afterwards; send a new object instead.
   */
  send(update: SessionUpdate): Promise<void>;
  /**
   * Asks the user. In v2 the state goes `requires_action` while waiting (while several are pending:
   * until the last is answered), then `running`; pass `{ blocking: false }` when other work of the
   * turn goes on meanwhile (ACP-V2-LIFE-07). When the turn is cancelled the request is cancelled
   * and this resolves `{ outcome: 'cancelled' }`.
   */
  requestPermission(question: PermissionQuestion, options?: PermissionRequestOptions): Promise<PermissionOutcome>;
  /**
   * Puts a form to the user (`elicitation/create`, form mode, scoped to this session and
   * `toolCallId` when given) and waits: `accept` + `content`, `decline` or `cancel`; validate the
   * content before use (`validateElicitationContent`) and never assume `accept` (ACP-ALL-ELIC-08).
   * The v2 state and `blocking` work as for {@link requestPermission}; cancelling the turn
   * withdraws the question (`$/cancel_request`) and resolves `cancel` (ACP-V2-CANCEL-09,
   * ACP-V2-CLOSE-02). Throws `ElicitationNotSupportedError` when the client did not advertise
   * form mode (ACP-ALL-ELIC-01).
   */
  elicit(question: FormElicitationQuestion, options?: PermissionRequestOptions): Promise<CreateElicitationResponse>;
  /**
   * Sends the user to a URL (url mode): `accept` is consent, completion is announced later with
   * {@link AgentSession.completeElicitation}. Never falls back to a form (ACP-ALL-ELIC-05): throws
   * `ElicitationNotSupportedError` when url mode is not advertised.
   */
  elicitUrl(question: UrlElicitationQuestion, options?: PermissionRequestOptions): Promise<UrlElicitationAnswer>;
}

/** Options of {@link Turn.requestPermission}. */
export interface PermissionRequestOptions {
  /**
   * Whether the turn as a whole waits for the answer (default `true`): v2 then reports
   * `requires_action`. `false` when other foreground work of the turn progresses meanwhile, so
   * the state stays `running` (ACP-V2-LIFE-07).
   */
  blocking?: boolean;
}

/** How a turn ended. A thrown abort error becomes `cancelled`; any other throw becomes `error` (v2). */
export type TurnResult =
  | StopReason
  | {
      stopReason: StopReason;
      error?: ErrorObject;
      /** The turn's token usage: sent on the v1 prompt result (unstable; v2 has no place for it). */
      usage?: TurnUsage;
    };

/** What an agent author implements; the runtime owns the protocol. */
export interface AgentDefinition {
  info: Implementation;
  /** Prompt capabilities etc.; session list/resume/close/delete/load are filled in by the runtime. */
  capabilities?: Pick<AgentCapabilities, 'prompt' | 'mcp' | '_meta'>;
  authMethods?: AuthMethod[];
  /** Called for `authenticate` / `auth/login`; throw an `AcpError` to refuse. */
  authenticate?(methodId: string): Promise<void> | void;
  /** Called for v1 `logout` (advertised only when defined) / v2 `auth/logout`. */
  logout?(): Promise<void> | void;
  /** Extension requests (`_`-prefixed methods); without it they get -32601. */
  extMethod?(method: string, params: unknown): Promise<unknown> | unknown;
  /** Extension notifications (`_`-prefixed); without it they are ignored (ACP-ALL-EXT-06). */
  extNotification?(method: string, params: unknown): Promise<void> | void;
  /**
   * Called when a session is created or restored; may return initial config options / commands.
   * `context` says whether the session was restored (`session/load`, `session/resume`) and gives its
   * stored history, e.g. to rebuild a model conversation after an agent restart.
   */
  openSession?(session: AgentSession, context: OpenSessionContext): Promise<SessionSetup | void> | SessionSetup | void;
  /** Validates and applies a config option change; returns the complete new list. Throw `AcpError.invalidParams` to reject. */
  setConfigOption?(
    session: AgentSession,
    configId: string,
    value: string | boolean,
  ): Promise<ConfigOption[]> | ConfigOption[];
  /** Runs one turn. */
  prompt(turn: Turn): Promise<TurnResult>;
  /** Called when a session is closed (resources released). */
  closeSession?(session: AgentSession): Promise<void> | void;
  /** The unstable session methods to serve (fork, archive, status, title); none by default. */
  sessionMethods?: UnstableSessionMethods;
  /** Unstable `auth/status` and `auth/status_update` (the `auth.status` capability); none by default. */
  auth?: AgentAuthStatusSource;
  /** Unstable `providers/list|set|disable` (the `providers` capability); none by default. */
  providers?: AgentProviders;
}

/** What {@link AgentDefinition.openSession} learns about how the session came to be. */
export interface OpenSessionContext {
  /** `false` for `session/new`; `true` for `session/load` / `session/resume` of a stored session. */
  restored: boolean;
  /**
   * The session's stored history, oldest first (empty for a new session, and with `store: null`):
   * the neutral updates as they were sent, `user_message`s included (with the content of each
   * prompt), live-only kinds (`state_update`, `notice`) excluded. Read-only: a `session/load`
   * replays these same objects to the client after `openSession` returns.
   */
  history: readonly AnySessionUpdate[];
  /** Unstable `session/fork`: the session this one is a copy of (its history is `history`). */
  forkedFrom?: string;
}

export interface SessionSetup {
  configOptions?: ConfigOption[];
  availableCommands?: AvailableCommand[];
}

import type { SessionMcpServer } from './mcp-over-acp-session.js';
import type {
  WireCodec,
  Meta,
  Implementation,
  AnySessionUpdate,
  SessionArchiveFilter,
  SessionState,
} from '@acp-kit/protocol';
import type { PeerOptions, Transport } from '@acp-kit/protocol/rpc';
import type { FileSystemSandboxOptions } from './services/fs-sandbox.js';
import type { ElicitationPolicy } from './services/elicitation-policy.js';
import type { PermissionPolicy } from './services/permission-policy.js';
import type { TerminalManagerOptions } from './services/terminals.js';
import type { ClientProblem } from './events.js';

/** How to reach the agent: spawn a command (stdio), or use a ready transport. */
export type AgentTarget =
  | { command: string; args?: readonly string[]; cwd?: string; env?: NodeJS.ProcessEnv; transport?: undefined }
  | { transport: Transport; command?: undefined };

/** Which protocol version to speak. */
export type ProtocolChoice = 'auto' | 1 | 2;

/** Options of {@link connect} / {@link connectToAgent}. */
export interface ClientOptions {
  /**
   * `auto` (default): one `initialize` asking for v2 that carries the v1 fields too, accepting
   * whichever of 1 and 2 the agent answers. `1` / `2`: ask for exactly that version and
   * disconnect if the agent answers anything else.
   */
  protocol?: ProtocolChoice;
  /** Sent as v1 `clientInfo` and v2 `info` (ACP-V1-INIT-01, ACP-V2-INIT-01). */
  clientInfo?: Implementation;
  /** Default policy for `session/request_permission` (default: reject, else `cancelled`). */
  permissionPolicy?: PermissionPolicy;
  /**
   * Answers `elicitation/create` (forms, urls): the client advertises `elicitation.form` / `.url`
   * for the modes it has a handler for (ACP-ALL-ELIC-01). Omitted: no elicitation is advertised.
   * Policies: `declineElicitations()`, `answerElicitations(answers)`, `urlConsent(...)`.
   */
  elicitation?: ElicitationPolicy;
  /**
   * v1 only: serve `fs/read_text_file` / `fs/write_text_file` from a sandbox confined to each
   * session's roots, and advertise `fs` (ACP-V1-FS-01). `true` = default sandbox options.
   */
  fileSystem?: boolean | FileSystemSandboxOptions;
  /**
   * v1 only: serve `terminal/*` (client-executed commands) and advertise `terminal`. The
   * `onOutput` / `onExit` callbacks get the terminal id; look the command up with
   * `ClientSession.clientTerminal(id)`.
   */
  terminals?: boolean | Omit<TerminalManagerOptions, 'roots'>;
  /** Extension capabilities, sent in the capabilities' `_meta` (ACP-ALL-CAP-03). */
  capabilitiesMeta?: Meta;
  /** Agent stderr (also available as the `stderr` event). */
  onStderr?: (text: string) => void;
  /** Protocol problems the connection survived (also the `problem` event). */
  onProblem?: (problem: ClientProblem) => void;
  /** Lines of agent stderr kept for crash reports (default 20). */
  stderrLines?: number;
  /** Sees every message in wire order (debugging, conformance tests). */
  tap?: PeerOptions['tap'];
  /** Codec factory override (tests); default: the built-in v1/v2 codecs. */
  codecFor?: (version: 1 | 2) => WireCodec;
  /**
   * Gives up connecting when it aborts before `initialize` has completed: a spawned agent's
   * process group is killed and `connect` rejects with `ConnectAbortedError` (`reason:
   * 'aborted'`, the signal's reason as `cause`). Aborting later has no effect; use `close()`.
   */
  signal?: AbortSignal;
  /**
   * Milliseconds to wait for the agent's `initialize` answer (default: no limit). When they
   * elapse, a spawned agent's process group is killed and `connect` rejects with
   * `ConnectAbortedError` (`reason: 'timeout'`), e.g. `agent did not answer initialize within
   * 60 s (node agent.js)`.
   */
  initializeTimeoutMs?: number;
  /**
   * Max updates kept, in all, for session ids not known yet (updates an agent sends before its
   * `session/new` response; at most 64 such ids), before the oldest are dropped with an
   * `unknown-session` problem (default 10 000).
   */
  maxBufferedUpdates?: number;
  /**
   * Milliseconds to wait for the answer to a session set-up request (`session/new`,
   * `session/load`, `session/resume`; default: no limit; each replayed update of a load/resume
   * starts the wait again, so a long replay is not cut short). When they elapse the request is
   * cancelled (`$/cancel_request`, a late answer is ignored) and the call rejects with
   * `RequestTimeoutError`, e.g. `the agent did not answer session/new within 60 s`.
   */
  sessionSetupTimeoutMs?: number;
}

/** `session/new` parameters. */
/** Options of `ClientConnection.listSessions`. */
export interface ListSessionsOptions {
  /** only sessions of this working directory */
  cwd?: string;
  /** unstable, with the agent's `archive` capability: `exclude` (the agent's default), `include`, `only` */
  archived?: SessionArchiveFilter;
}

export interface NewSessionOptions {
  /** absolute (ACP-ALL-SESS-03) */
  cwd: string;
  /** absolute; only sent when the agent advertises the capability (ACP-ALL-SESS-05) */
  additionalDirectories?: string[];
  /**
   * Wire entries, or servers the client serves itself over the connection (MCP over ACP): an MCP
   * server object (`{ type: 'acp', name, server }`) or a stdio server the client starts and relays
   * (`{ type: 'acp', name, command }`). See docs/mcp-over-acp.md for the fallback without the capability.
   */
  mcpServers?: SessionMcpServer[];
  /** Overrides the connection's policy for this session. */
  permissionPolicy?: PermissionPolicy;
  _meta?: Meta;
  /**
   * Streams the set-up: called with every update applied to the new session's state while
   * `newSession` / `loadSession` / `resumeSession` runs, in wire order, after each is applied,
   * all before the method resolves — the updates the agent sent before its response or in the
   * same read (e.g. `available_commands_update`), a load/resume replay, v2's `state_update`
   * snapshot and what the setup result sets (config options, modes, commands). Afterwards it
   * is never called again: subscribe with `session.onUpdate` when the call resolves, and no
   * update falls in between. An exception it throws is reported as a `handler-error` problem
   * and the set-up goes on.
   */
  onUpdate?: (update: AnySessionUpdate, state: SessionState) => void;
  /**
   * Aborting gives up on the set-up request: it is withdrawn with `$/cancel_request`
   * (ACP-ALL-CREQ-01), a late answer is ignored, and the call rejects with -32800 (e.g. the
   * user pressed Ctrl-C while the agent was still loading a session).
   */
  signal?: AbortSignal;
}

/** `session/load` / `session/resume` parameters. */
export type RestoreSessionOptions = NewSessionOptions;

/** `session/resume` parameters. */
export interface ResumeSessionOptions extends NewSessionOptions {
  /**
   * Replay the history into the session state: v2 `replayFrom: {type: "start"}`; on v1 this
   * uses `session/load` (the only v1 replay).
   */
  replay?: boolean;
}

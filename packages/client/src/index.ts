/**
 * acp-kit client runtime: connect to any ACP agent (v1 or v2; acp-kit agents, the official SDK,
 * adapters) and keep one version-neutral, correct view of each session.
 *
 * ```ts
 * import { connect, approveReads } from 'acp-kit/client';
 * const conn = await connect({ command: 'my-agent', args: ['--acp'], permissionPolicy: approveReads() });
 * const session = await conn.newSession({ cwd: process.cwd() });
 * session.onUpdate(() => render(session.state));
 * const { stopReason } = await session.prompt('Fix the failing test');
 * await conn.close();
 * ```
 *
 * @module
 */
export { connect, connectRemote, connectToAgent, ClientConnection } from './connection.js';
export { openRemoteTransport, type RemoteTarget } from './remote.js';
export {
  connectReconnecting,
  ReconnectingConnection,
  ReconnectingSession,
  ReconnectFailedError,
  type ReconnectEvents,
  type ReconnectOptions,
  type ReconnectingClientOptions,
  type ReconnectingUpdateListener,
} from './reconnect.js';
export { ClientSession, type PromptOptions, type PromptResult } from './client-session.js';
export { UnsupportedProtocolVersionError } from './initialize.js';
export {
  AgentStartupError,
  ConnectAbortedError,
  NON_JSON_STDOUT_GRACE_MS,
  type AgentStartupFailure,
  type ConnectAbortReason,
} from './connect-abort.js';
export { RequestTimeoutError } from './request-timeout.js';
export {
  authMethodsFromError,
  mergeAuthMethods,
  shellCommandLine,
  terminalLoginCommand,
  type TerminalLoginCommand,
} from './auth.js';
export type { ClientEvents, ClientProblem } from './events.js';
export type { ElicitationEvent } from './elicitations.js';
export type {
  AgentTarget,
  ClientOptions,
  ListSessionsOptions,
  NewSessionOptions,
  ProtocolChoice,
  RestoreSessionOptions,
  ResumeSessionOptions,
} from './options.js';
export * from './services/index.js';
export {
  SessionState,
  MessageState,
  ToolCallState,
  PlanState,
  TerminalState,
  CompactionState,
  type ForegroundInfo,
  type UsageInfo,
  type SessionInfoState,
  type StateChangeListener,
  type TimelineEntry,
} from '@acp-kit/protocol';
export { ConnectionClosedError } from '@acp-kit/protocol/rpc';
export type { AuthProvidersClient } from './auth-providers.js';
export {
  McpBindingError,
  McpOverAcpServerTransport,
  McpOverAcpServers,
  type McpJsonRpcMessage,
  type McpNotify,
  type McpOverAcpBackend,
  type McpServerLike,
  type McpTransport,
  type OfferedMcpServer,
  type RelayedMcpServer,
} from './mcp-over-acp.js';
export { McpStdioRelay } from './mcp-over-acp-stdio.js';
export { resolveMcpServers, type SessionMcpServer } from './mcp-over-acp-session.js';

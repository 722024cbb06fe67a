export type * from './types.js';
export { serveAgent, type AgentConnection, type ServeAgentOptions } from './agent-connection.js';
export {
  ElicitationNotSupportedError,
  clientSupportsElicitation,
  type ElicitationMode,
  type FormElicitationQuestion,
  type UrlElicitationAnswer,
  type UrlElicitationQuestion,
} from './elicitation.js';
export { SharedSessions } from './shared-sessions.js';
export { runAgentOnStdio, serveAgentOnStreams, type RunAgentOnStdioOptions } from './stdio.js';
export {
  InMemorySessionStore,
  isHistoryUpdate,
  SESSION_LOCKED,
  SESSION_STORE_UNAVAILABLE,
  type SessionStore,
  type StoredSession,
  type StoredSessionMeta,
  type ConfigValues,
} from './session-store.js';
export {
  JsonlSessionStore,
  defaultSessionDir,
  agentDirName,
  BUILTIN_AGENT_NAME,
  parseSessionFile,
} from './jsonl-session-store.js';
export { stderrLogger, silentLogger, type AgentLogger } from './logger.js';
export { LIST_PAGE_SIZE } from './session-list.js';
export type { AgentAuthStatusSource, AgentProviders } from './auth-providers.js';
export { normalizeTitle, MAX_TITLE_LENGTH, type UnstableSessionMethods } from './unstable-sessions.js';
// The built-in coding agent moved to `acp-kit/agent/coding` (0.2), HTTP models are in
// `acp-kit/agent/models`: a runtime-only agent loads neither before answering `initialize`.
export {
  McpOverAcpRoutes,
  type McpOverAcpChannel,
  type McpOverAcpNotification,
  type McpOverAcpRequestOptions,
  type McpMessageSender,
} from './mcp-over-acp.js';

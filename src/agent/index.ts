export type * from './types.js';
export { serveAgent, type AgentConnection, type ServeAgentOptions } from './agent-connection.js';
export { runAgentOnStdio, type RunAgentOnStdioOptions } from './stdio.js';
export { InMemorySessionStore, isHistoryUpdate, type SessionStore, type StoredSession, type StoredSessionMeta, type ConfigValues } from './session-store.js';
export { JsonlSessionStore, defaultSessionDir, parseSessionFile } from './jsonl-session-store.js';
export { stderrLogger, silentLogger, type AgentLogger } from './logger.js';
export { LIST_PAGE_SIZE } from './session-list.js';

export type * from './types.js';
export { serveAgent, type AgentConnection, type ServeAgentOptions } from './agent-connection.js';
export { runAgentOnStdio, type RunAgentOnStdioOptions } from './stdio.js';
export { InMemorySessionStore, isHistoryUpdate, SESSION_LOCKED, type SessionStore, type StoredSession, type StoredSessionMeta, type ConfigValues } from './session-store.js';
export { JsonlSessionStore, defaultSessionDir, agentDirName, BUILTIN_AGENT_NAME, parseSessionFile } from './jsonl-session-store.js';
export { stderrLogger, silentLogger, type AgentLogger } from './logger.js';
export { LIST_PAGE_SIZE } from './session-list.js';
// the built-in coding agent (no AI SDK here: HTTP models are in `acp-kit/agent/models`)
export { createCodingAgent, MODES, COMMANDS, type CodingAgentOptions } from './coding/index.js';
export { createDemoModel, type DemoModelOptions } from './coding/models/demo.js';
export { builtinTools } from './coding/tools/index.js';
export { conversationFromHistory, type ConversationFromHistoryOptions, type RestoredCommandEffect } from './coding/restore.js';
export { ToolInputError, textContent, type Tool, type ToolContext, type ToolOutcome, type PermissionContext, type AgentMode } from './coding/tool.js';
export type {
  LanguageModel, ModelRequest, ModelEvent, ModelFinishReason, ModelToolCall, ConversationMessage, AssistantPart, UserPart,
  ToolResult, ToolSpec, JsonSchema,
} from './coding/model.js';
export type { Sandbox, ResolvedPath } from './coding/sandbox.js';
export type { WorkspaceFs } from './coding/workspace-fs.js';
export type { CommandRunner, CommandOptions, CommandResult } from './coding/terminal.js';

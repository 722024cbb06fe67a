export {
  McpConnections,
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  type McpConnectOptions,
  type McpServerStatus,
} from './mcp-connections.js';
export { createMcpTool, toolOutcome as mcpToolOutcome, type McpToolCaller } from './mcp-tool.js';
export { mcpToolName, sanitizeToolNamePart, uniqueToolName, MAX_TOOL_NAME } from './tool-name.js';
export {
  openSessionMcp,
  closeSessionMcp,
  sessionMcp,
  sessionMcpTools,
  reportMcpFailures,
  describeMcpFailure,
  type SessionMcpOptions,
} from './session-mcp.js';
export { mcpPromptCommands, promptArguments, promptMessages, type McpPromptCommand } from './mcp-prompts.js';

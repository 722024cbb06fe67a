/**
 * `acp-kit/agent/coding`: the built-in coding agent (engine, tools, permission modes, the offline
 * demo model, MCP). A separate entry point so that an agent built on the runtime alone
 * (`acp-kit/agent`) never loads it: editors spawn one agent per thread, and every module loaded
 * before the `initialize` answer is start-up time. HTTP models are in `acp-kit/agent/models`.
 *
 * @module
 */
export { createCodingAgent, MODES, COMMANDS, type CodingAgentOptions } from './coding-agent.js';
export { createDemoModel, type DemoModelOptions } from './models/demo.js';
export {
  ModelProviders,
  type ModelProviderId,
  type ModelProvidersOptions,
  type ProviderRoute,
} from './models/routing.js';
export { builtinTools } from './tools/index.js';
export { conversationFromHistory, type ConversationFromHistoryOptions, type RestoredCommandEffect } from './restore.js';
export {
  ToolInputError,
  textContent,
  type Tool,
  type ToolContext,
  type ToolOutcome,
  type PermissionContext,
  type AgentMode,
} from './tool.js';
export type {
  LanguageModel,
  ModelRequest,
  ModelEvent,
  ModelFinishReason,
  ModelToolCall,
  ConversationMessage,
  AssistantPart,
  UserPart,
  ToolResult,
  ToolSpec,
  JsonSchema,
} from './model.js';
export type { Sandbox, ResolvedPath } from './sandbox.js';
export type { WorkspaceFs } from './workspace-fs.js';
export type { CommandRunner, CommandOptions, CommandResult } from './terminal.js';

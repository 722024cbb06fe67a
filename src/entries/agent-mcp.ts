/** `acp-kit/agent/mcp`: the same as `@acp-kit/coding-agent/mcp` (an MCP client for any agent). @module */
export * from '@acp-kit/coding-agent/mcp';

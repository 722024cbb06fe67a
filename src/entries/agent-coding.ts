/** `acp-kit/agent/coding`: the same as `@acp-kit/coding-agent` (the built-in coding agent). @module */
export * from '@acp-kit/coding-agent';

/** `acp-kit/agent/models`: the same as `@acp-kit/coding-agent/models` (HTTP models via the Vercel AI SDK). @module */
export * from '@acp-kit/coding-agent/models';

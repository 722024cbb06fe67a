/** `acp-kit/agent`: `@acp-kit/agent` (the agent runtime) and the PostgreSQL session store of `@acp-kit/server/postgres`. @module */
export * from '@acp-kit/agent';
export * from '@acp-kit/server/postgres';

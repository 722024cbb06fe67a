/** `acp-kit/server`: the same as `@acp-kit/server`. @module */
export * from '@acp-kit/server';

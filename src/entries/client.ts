/** `acp-kit/client`: the same as `@acp-kit/client`. @module */
export * from '@acp-kit/client';

/** `acp-kit/checker`: the same as `@acp-kit/tools/checker`. @module */
export * from '@acp-kit/tools/checker';

/** `acp-kit/proxy`: the same as `@acp-kit/tools/proxy`. @module */
export * from '@acp-kit/tools/proxy';

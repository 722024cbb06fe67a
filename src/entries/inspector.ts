/** `acp-kit/inspector`: the same as `@acp-kit/tools/inspector`. @module */
export * from '@acp-kit/tools/inspector';

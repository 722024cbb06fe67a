/** `acp-kit/protocol`: the same as `@acp-kit/protocol` (wire types, codecs, validators, the session model). @module */
export * from '@acp-kit/protocol';

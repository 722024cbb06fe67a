/** `acp-kit/rpc`: the same as `@acp-kit/protocol/rpc` (the JSON-RPC peer and transports). @module */
export * from '@acp-kit/protocol/rpc';

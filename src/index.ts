/**
 * acp-kit: the Agent Client Protocol for TypeScript.
 *
 * - `acp-kit/protocol`: wire types, validators, codecs and the version-neutral session model
 * - `acp-kit/rpc`: the JSON-RPC peer and transports
 * - `acp-kit/agent`: write an agent once, serve v1 and v2
 * - `acp-kit/client`: drive any ACP agent
 */
export * from '@acp-kit/protocol';
export * from '@acp-kit/protocol/rpc';

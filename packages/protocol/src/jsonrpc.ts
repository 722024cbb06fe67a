import type { RpcErrorObject } from './errors.js';

/** JSON-RPC 2.0 request id (ACP-ALL-RPC-03). */
export type RequestId = string | number;

/** @deprecated Not used by acp-kit (the peer works on `unknown` messages and checks their shape); kept for compatibility, to be removed in 0.2. */
export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: unknown;
}
/** @deprecated Not used by acp-kit (the peer works on `unknown` messages and checks their shape); kept for compatibility, to be removed in 0.2. */
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}
/** @deprecated Not used by acp-kit (the peer works on `unknown` messages and checks their shape); kept for compatibility, to be removed in 0.2. */
export interface RpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}
/** @deprecated Not used by acp-kit (the peer works on `unknown` messages and checks their shape); kept for compatibility, to be removed in 0.2. */
export interface RpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: RpcErrorObject;
}
/** @deprecated Not used by acp-kit (the peer works on `unknown` messages and checks their shape); kept for compatibility, to be removed in 0.2. */
export type RpcResponse = RpcSuccess | RpcFailure;
/** @deprecated Not used by acp-kit (the peer works on `unknown` messages and checks their shape); kept for compatibility, to be removed in 0.2. */
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** `$/cancel_request` (ACP-ALL-CREQ-01). */
export const CANCEL_REQUEST_METHOD = '$/cancel_request';

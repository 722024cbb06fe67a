import type { RpcErrorObject } from './errors.js';

/** JSON-RPC 2.0 request id (ACP-ALL-RPC-03). */
export type RequestId = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: unknown;
}
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}
export interface RpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}
export interface RpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: RpcErrorObject;
}
export type RpcResponse = RpcSuccess | RpcFailure;
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** `$/cancel_request` (ACP-ALL-CREQ-01). */
export const CANCEL_REQUEST_METHOD = '$/cancel_request';

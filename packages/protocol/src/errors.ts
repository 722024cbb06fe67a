/** JSON-RPC and ACP error codes (ACP-ALL-RPC-05). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  AuthRequired: -32000,
  ResourceNotFound: -32002,
  UnsupportedVersion: -32022,
  RequestCancelled: -32800,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * What a client is told when the process ran out of file descriptors: the system error's own
 * message names server paths (`EMFILE: too many open files, open '/home/…'`), which a client must not see.
 */
export const OUT_OF_DESCRIPTORS = 'the server is out of file descriptors (EMFILE) for the moment: try again later';

/** Whether `e` is the system running out of file descriptors (EMFILE, ENFILE). */
export function outOfDescriptors(e: unknown): boolean {
  const code = e !== null && typeof e === 'object' && 'code' in e ? e.code : undefined;
  return code === 'EMFILE' || code === 'ENFILE';
}

/** A JSON-RPC error object as it travels on the wire. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error that crosses the wire as a JSON-RPC error. Throw it from a handler to answer with
 * exactly this code/message/data; requests that fail reject with it.
 */
export class AcpError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'AcpError';
    this.code = code;
    this.data = data;
  }

  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /**
   * The error a thrown value stands for, the one converter from "anything thrown" to a JSON-RPC
   * error: an `AcpError` is itself; anything else is -32603 carrying the cause's own message
   * (and an `Error`'s class name in `data.name`), never an opaque "internal error".
   */
  static from(e: unknown): AcpError {
    if (e instanceof AcpError) return e;
    if (outOfDescriptors(e))
      return new AcpError(ErrorCode.InternalError, OUT_OF_DESCRIPTORS, { reason: 'EMFILE', retryable: true });
    if (e instanceof Error) return new AcpError(ErrorCode.InternalError, e.message || e.name, { name: e.name });
    return new AcpError(ErrorCode.InternalError, typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e)));
  }

  /** From a received error object, leniently: a missing/odd `code` or `message` gets a default. */
  static fromObject(e: RpcErrorObject | { code?: unknown; message?: unknown; data?: unknown }): AcpError {
    return new AcpError(
      typeof e.code === 'number' ? e.code : ErrorCode.InternalError,
      typeof e.message === 'string' ? e.message : 'Unknown error',
      e.data,
    );
  }

  static parseError(detail: string): AcpError {
    return new AcpError(ErrorCode.ParseError, `Parse error: ${detail}`);
  }
  static invalidRequest(detail: string): AcpError {
    return new AcpError(ErrorCode.InvalidRequest, `Invalid request: ${detail}`);
  }
  static methodNotFound(method: string): AcpError {
    return new AcpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, { method });
  }
  /** `path` is a JSON path such as `params.update.content` (no leading `$`). */
  static invalidParams(detail: string, data?: unknown): AcpError {
    return new AcpError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
  }
  static internal(detail: string, data?: unknown): AcpError {
    return new AcpError(ErrorCode.InternalError, `Internal error: ${detail}`, data);
  }
  static authRequired(detail = 'authentication required'): AcpError {
    return new AcpError(ErrorCode.AuthRequired, detail);
  }
  static sessionNotFound(sessionId: string): AcpError {
    return new AcpError(ErrorCode.ResourceNotFound, `Session not found: ${sessionId}`, { sessionId });
  }
  static resourceNotFound(detail: string, data?: unknown): AcpError {
    return new AcpError(ErrorCode.ResourceNotFound, `Resource not found: ${detail}`, data);
  }
  static unsupportedVersion(requested: unknown, supported: number[]): AcpError {
    return new AcpError(
      ErrorCode.UnsupportedVersion,
      `Unsupported protocol version ${JSON.stringify(requested)}; this agent speaks ${supported.join(', ')}`,
      { requested, supported },
    );
  }
  static cancelled(detail = 'request cancelled'): AcpError {
    return new AcpError(ErrorCode.RequestCancelled, `Request cancelled: ${detail}`);
  }
}

/** True for the errors that `fetch`, Node and most SDKs throw when an `AbortSignal` fires. */
export function isAbortError(e: unknown): boolean {
  if (e instanceof AcpError) return e.code === ErrorCode.RequestCancelled;
  if (!e || typeof e !== 'object') return false;
  return ('name' in e && e.name === 'AbortError') || ('code' in e && e.code === 'ABORT_ERR');
}

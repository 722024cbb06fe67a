// The error a component's request is answered with when one of its handlers fails.
import { AcpError, ErrorCode, isAbortError } from '@acp-kit/protocol';

/**
 * What a component named `name` answers when its handler for `method` threw `e`: an `AcpError` as it
 * is (the handler's own answer, or one the next hop gave), a cancellation as the peer answers it
 * (-32800), anything else as -32603 naming the component, so the editor can tell which component of a
 * chain failed. An `AcpError` is recognised by its shape too: an in-process component may be loaded
 * with another copy of the library than the conductor's.
 */
export function namedError(name: string, method: string, e: unknown): unknown {
  if (e instanceof AcpError || isAbortError(e)) return e;
  if (isAcpErrorLike(e)) return new AcpError(e.code, e.message, e.data);
  const message = e instanceof Error ? e.message || e.name : String(e);
  return new AcpError(ErrorCode.InternalError, `Internal error: component ${name} failed in ${method}: ${message}`, {
    component: name,
    method,
  });
}

function isAcpErrorLike(e: unknown): e is Error & { code: number; data?: unknown } {
  return e instanceof Error && e.name === 'AcpError' && 'code' in e && typeof e.code === 'number';
}

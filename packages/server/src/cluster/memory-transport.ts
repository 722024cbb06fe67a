import { messageToText, parseMessageText } from '@acp-kit/protocol/internal';
import type { CloseInfo, Transport, TransportHandlers } from '@acp-kit/protocol/rpc';

/**
 * Two connected in-memory transports: what one sends, the other receives (as JSON text parsed
 * again, like a wire: nothing shared by reference), in order, on a later microtask. The cluster
 * speaks ACP to its own agent through one (the owner's connection for remote followers) and
 * stands between a client and the agent with another.
 */
export function memoryTransportPair(): [Transport, Transport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class MemoryTransport implements Transport {
  peer: MemoryTransport | undefined;
  private handlers: TransportHandlers | undefined;
  private readonly early: unknown[] = [];
  private closed = false;

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    for (const m of this.early.splice(0)) handlers.onMessage(m);
  }

  send(message: object): void {
    if (this.closed) return;
    // exact ids (bigint, ExactNumberId) cross as they would over a socket
    const text = messageToText(message);
    const peer = this.peer;
    queueMicrotask(() => peer?.receive(parseMessageText(text)));
  }

  private receive(m: unknown): void {
    if (this.closed) return;
    if (this.handlers) this.handlers.onMessage(m);
    else this.early.push(m);
  }

  whenWritable(): Promise<void> {
    return Promise.resolve();
  }
  flush(): Promise<void> {
    return new Promise((r) => queueMicrotask(r));
  }
  close(info: CloseInfo = { reason: 'closed' }): void {
    if (this.closed) return;
    this.closed = true;
    queueMicrotask(() => {
      this.handlers?.onClose(info);
      this.peer?.close(info);
    });
  }
}

import { describe, expect, it } from 'vitest';
import { JsonRpcPeer, type Transport, type TransportHandlers } from '../src/rpc/index.js';

/** A transport whose owner delivers messages by hand, synchronously (as a custom in-process transport may). */
class HandTransport implements Transport {
  handlers: TransportHandlers | undefined;
  readonly sent: object[] = [];
  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }
  send(message: object): void {
    this.sent.push(message);
  }
  whenWritable(): Promise<void> {
    return Promise.resolve();
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  close(): void {}
}

describe('JsonRpcPeer (review of the batch and request-id changes)', () => {
  it('a message delivered synchronously while a batch runs waits for the batch entries after it', () => {
    const t = new HandTransport();
    const peer = new JsonRpcPeer(t);
    const seen: string[] = [];
    peer.onNotification('a', () => {
      seen.push('a');
      // arrives while entry "a" of the batch runs: it came after the whole batch
      t.handlers?.onMessage({ jsonrpc: '2.0', method: 'c' });
    });
    peer.onNotification('b', () => void seen.push('b'));
    peer.onNotification('c', () => void seen.push('c'));
    t.handlers?.onMessage([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ]);
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});

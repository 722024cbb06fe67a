import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcPeer, StreamTransport, type Transport, type TransportHandlers } from '../src/rpc/index.js';

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

  for (const id of ['1.0', '1e2', '-0', '12345678901234567890']) {
    it(`$/cancel_request cancels a running request whose id ${id} JSON.parse does not keep exactly`, async () => {
      const toPeer = new PassThrough();
      const fromPeer = new PassThrough();
      const peer = new JsonRpcPeer(new StreamTransport(toPeer, fromPeer));
      peer.onRequest(
        'slow',
        (_p, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      );
      let out = '';
      fromPeer.on('data', (c: Buffer) => (out += c.toString()));
      toPeer.write(`{"jsonrpc":"2.0","id":${id},"method":"slow"}\n`);
      toPeer.write(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${id}}}\n`);
      // a request sent after the cancel proves, by its answer, that the cancel was handled
      peer.onRequest('ping', () => 'pong');
      toPeer.write('{"jsonrpc":"2.0","id":"p","method":"ping"}\n');
      await new Promise<void>((resolve) => fromPeer.on('data', () => out.includes('"pong"') && resolve()));
      expect(out).toContain(`"id":${id},"error":{"code":-32800`);
      peer.close();
    });
  }

  it('echoes an id 5.0 exactly when the params hold an "id":5 of their own', async () => {
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const peer = new JsonRpcPeer(new StreamTransport(toPeer, fromPeer));
    peer.onRequest('echo', (p) => p);
    let out = '';
    const answered = new Promise<void>((resolve) =>
      fromPeer.on('data', (c: Buffer) => (out += c.toString()).includes('\n') && resolve()),
    );
    toPeer.write('{"jsonrpc":"2.0","method":"echo","params":{"id":5},"id":5.0}\n');
    await answered;
    expect(out).toBe('{"jsonrpc":"2.0","id":5.0,"result":{"id":5}}\n');
    peer.close();
  });
});

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcPeer, StreamTransport } from '../src/rpc/index.js';
import { AcpError } from '../src/protocol/index.js';

function pair() {
  const a2b = new PassThrough();
  const b2a = new PassThrough();
  const a = new JsonRpcPeer(new StreamTransport(b2a, a2b));
  const b = new JsonRpcPeer(new StreamTransport(a2b, b2a));
  return { a, b };
}

describe('JsonRpcPeer', () => {
  it('round-trips requests and errors both ways', async () => {
    const { a, b } = pair();
    b.onRequest('add', (p) => (p as { x: number; y: number }).x + (p as { x: number; y: number }).y);
    a.onRequest('fail', () => {
      throw AcpError.invalidParams('params.x: expected a number');
    });
    expect(await a.request('add', { x: 2, y: 3 })).toBe(5);
    await expect(b.request('fail', {})).rejects.toMatchObject({ code: -32602, message: 'Invalid params: params.x: expected a number' });
    await expect(a.request('nope')).rejects.toMatchObject({ code: -32601 });
  });
});

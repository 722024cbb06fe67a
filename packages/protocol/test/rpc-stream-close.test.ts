import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamTransport } from '../src/rpc/index.js';

describe('StreamTransport close', () => {
  it('hands over messages queued while waiting for drain instead of dropping them', async () => {
    const input = new PassThrough();
    // a slow reader: the output buffer fills at once and nobody reads until after close
    const output = new PassThrough({ highWaterMark: 1024 });
    const t = new StreamTransport(input, output);
    t.start({ onMessage: () => undefined, onInvalidLine: () => undefined, onClose: () => undefined });
    const n = 2000;
    for (let i = 0; i < n; i++) t.send({ jsonrpc: '2.0', method: 'tick', params: { i, pad: 'p'.repeat(100) } });
    t.close();
    let text = '';
    output.setEncoding('utf8');
    for await (const chunk of output) text += chunk as string;
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { params: { i: number } });
    expect(lines.length).toBe(n);
    expect(lines.map((l) => l.params.i)).toEqual(Array.from({ length: n }, (_, i) => i));
  });
});

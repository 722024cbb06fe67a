/**
 * The stdio transport when its output goes away first: Node destroys a child's stdin as soon as the
 * child exits, which can be before the child's last stdout lines (its final answer) were read. What
 * the other side wrote must still be delivered, in order, before the transport reports the close.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamTransport } from '../src/rpc/stream-transport.js';
import type { CloseInfo } from '../src/rpc/transport.js';

function open() {
  const input = new PassThrough();
  const written: string[] = [];
  const output = new Writable({
    write(chunk, _enc, cb) {
      written.push(String(chunk));
      cb();
    },
  });
  const messages: unknown[] = [];
  const transport = new StreamTransport(input, output);
  const closed = new Promise<CloseInfo>((resolve) =>
    transport.start({ onMessage: (m) => messages.push(m), onInvalidLine: () => undefined, onClose: resolve }),
  );
  return { input, output, written, messages, transport, closed };
}

describe('stream transport: output closed before the input ended', () => {
  it('still delivers what arrives on the input until it ends, in order, then closes naming the output', async () => {
    const t = open();
    t.output.destroy();
    await new Promise((r) => t.output.once('close', r));
    // the last answers of an agent that has just exited
    t.input.write('{"jsonrpc":"2.0","id":1,"result":"first"}\n{"jsonrpc":"2.0","id":2,');
    t.input.end('"result":"last"}\n');
    const info = await t.closed;
    expect(t.messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'first' },
      { jsonrpc: '2.0', id: 2, result: 'last' },
    ]);
    expect(info.reason).toBe('output stream closed');
    // nothing is written to the closed output, and waiting to write never hangs
    t.transport.send({ jsonrpc: '2.0', method: 'late' });
    await t.transport.flush();
    await t.transport.whenWritable();
    expect(t.written).toEqual([]);
  });

  it('closes by itself when the input never ends (a peer that closed only its reading side)', async () => {
    const t = open();
    t.output.destroy();
    const info = await t.closed;
    expect(info.reason).toBe('output stream closed');
    expect(t.messages).toEqual([]);
  });

  it('a write that fails (EPIPE, the child exited) still lets what the child wrote before arrive, then closes naming the failure', async () => {
    const input = new PassThrough();
    const output = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const lines: string[] = [];
    const transport = new StreamTransport(input, output);
    const closed = new Promise<CloseInfo>((resolve) =>
      transport.start({ onMessage: () => undefined, onInvalidLine: (i) => lines.push(i.line), onClose: resolve }),
    );
    const failed = new Promise((r) => output.once('error', r));
    // the initialize the agent never read; its write fails
    transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize' });
    await failed;
    // what the agent wrote before it exited, read after the failed write
    input.end('Usage: fixture-agent [--acp]\n');
    const info = await closed;
    expect(lines).toEqual(['Usage: fixture-agent [--acp]']);
    expect(info.reason).toBe('output stream failed: write EPIPE');
  });
});

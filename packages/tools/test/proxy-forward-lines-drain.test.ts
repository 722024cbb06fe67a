// Review of forwardLines: a line that goes over the limit forwards all the chunks it held at once;
// each write refused by backpressure added its own 'drain' listener (one per held chunk: Node's
// MaxListenersExceededWarning past 10, and as many resumes). One wait per backpressure episode.
import { PassThrough, Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { forwardLines } from '../src/proxy/forward-lines.js';

it('an over-long line forwarding its held chunks under backpressure waits for drain once, and every byte arrives', async () => {
  const from = new PassThrough();
  const received: Buffer[] = [];
  const callbacks: Array<() => void> = [];
  // a reader that takes nothing until released
  const to = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, cb) {
      received.push(chunk);
      callbacks.push(cb);
    },
  });
  const oversize: number[] = [];
  forwardLines(
    from,
    to,
    'agent->editor',
    { line: () => undefined, oversize: (_d, _h, bytes) => void oversize.push(bytes) },
    false,
    undefined,
    100,
  );
  // 30 chunks of 10 bytes: held until the 11th makes the line longer than 100 bytes
  const chunks = Array.from({ length: 30 }, (_, i) => Buffer.alloc(10, 97 + (i % 26)));
  for (const c of chunks.slice(0, 11)) from.write(c);
  await new Promise<void>((r) => setImmediate(r));
  expect(to.listenerCount('drain')).toBeLessThanOrEqual(1);
  // release the reader until everything (and the end of the line) went through
  for (const c of chunks.slice(11)) from.write(c);
  from.write('\n');
  for (let k = 0; k < 1000 && (callbacks.length > 0 || received.reduce((n, b) => n + b.length, 0) < 301); k++) {
    for (const cb of callbacks.splice(0)) cb();
    await new Promise<void>((r) => setImmediate(r));
  }
  expect(Buffer.concat(received).toString()).toBe(Buffer.concat([...chunks, Buffer.from('\n')]).toString());
  expect(oversize).toEqual([300]);
});

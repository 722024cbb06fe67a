import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, RawChild } from '../../../test/support/raw-child.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

// methods of the echo fixture that are safe to hit at random (not `crash` or `die`)
const methods = fc.constantFrom(
  'echo',
  'notifyThenAnswer',
  'junk',
  'problems',
  'nope',
  '$/cancel_request',
  '_ext/x',
  'session/prompt',
  '',
);
const validish = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object(), fc.double()),
    method: fc.oneof(methods, fc.string(), fc.integer()),
    params: fc.oneof(fc.jsonValue(), fc.record({ count: fc.integer({ min: -5, max: 20 }) })),
    result: fc.jsonValue(),
    error: fc.oneof(fc.jsonValue(), fc.record({ code: fc.integer(), message: fc.string() })),
  },
  { requiredKeys: [] },
);

/** Frames: valid-ish messages, random JSON, batches, and raw byte mutations of all of them. */
const frame = fc.oneof(
  validish.map((m) => JSON.stringify(m)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.array(validish, { maxLength: 4 }).map((b) => JSON.stringify(b)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString('latin1')),
  fc
    .tuple(
      validish.map((m) => JSON.stringify(m)),
      fc.nat(),
      fc.string({ maxLength: 5 }),
    )
    .map(([s, i, ins]) => {
      const at = s.length ? i % s.length : 0;
      return s.slice(0, at) + ins + s.slice(at + 1);
    }),
  // nesting on both sides of the 128-level limit, mostly near it (where an off-by-one would show);
  // one in ten up to 3000 levels: every depth past the limit takes the same path, and 1400 frames of
  // ~3 KB each were two thirds of the bytes both processes had to parse
  fc
    .oneof({ arbitrary: fc.nat({ max: 300 }), weight: 9 }, { arbitrary: fc.nat({ max: 3000 }), weight: 1 })
    .map((n) => '['.repeat(n) + ']'.repeat(n)),
);

describe('fuzz: 10 000 random and mutated frames over a real pipe', () => {
  it('still answers a valid request afterwards, and the process is alive', async () => {
    const c = new RawChild(fixture('rpc-echo.mjs'));
    cleanup.push(() => c.kill());
    const frames = fc.sample(frame, { numRuns: 10_000, seed: 20261121 });
    expect(frames.length).toBe(10_000);
    // newlines inside a frame split it into several frames: fine, that is more fuzz
    let payload = '';
    for (const f of frames) {
      payload += f.replace(/\u2028|\u2029/g, ' ') + '\n';
      if (payload.length > 64 * 1024) {
        c.write(payload);
        payload = '';
      }
    }
    c.write(payload);
    c.send({ jsonrpc: '2.0', id: 'final-check', method: 'echo', params: { survived: true } });
    // batches are accepted, never sent (ACP-V2-TRANS-11): an array that comes back holds only responses
    let arrays = 0;
    const notResponses: unknown[] = [];
    const reply = await c.until((m) => {
      if (Array.isArray(m)) {
        arrays++;
        notResponses.push(
          ...m.filter(
            (r) => !(r && typeof r === 'object' && 'id' in r && ('result' in r || 'error' in r) && !('method' in r)),
          ),
        );
      }
      return m && typeof m === 'object' && !Array.isArray(m) && m.id === 'final-check';
    }, 60_000);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 'final-check', result: { survived: true } });
    expect(arrays).toBeGreaterThan(0);
    expect(notResponses).toEqual([]);
    expect(c.alive).toBe(true);
  }, 90_000);
});

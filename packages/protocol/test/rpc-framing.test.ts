import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../src/rpc/ndjson.js';

function split(chunks: Buffer[], max?: number) {
  const lines: string[] = [];
  const tooLong: number[] = [];
  const s = new LineSplitter(
    (l) => lines.push(l),
    (n) => tooLong.push(n),
    max,
  );
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, tooLong };
}

describe('NDJSON framing (ACP-ALL-TRANS-04)', () => {
  it('joins lines split across chunks at every byte position, including inside UTF-8 sequences', () => {
    const text = '{"a":"héllo wörld ✓ 😀"}\n{"b":2}\n';
    const bytes = Buffer.from(text);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j += 3) {
        const { lines } = split([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]);
        expect(lines).toEqual(['{"a":"héllo wörld ✓ 😀"}', '{"b":2}']);
      }
    }
  });

  it('strips CRLF, a leading BOM and skips blank lines', () => {
    const { lines } = split([Buffer.from('\uFEFF{"a":1}\r\n\r\n   \n{"b":2}\r\n\n')]);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('emits a final line without a trailing newline on end()', () => {
    // a torn final line is handed on as-is: the JSON parser reports it
    expect(split([Buffer.from('{"a":1}\n{"b":')]).lines).toEqual(['{"a":1}', '{"b":']);
    expect(split([Buffer.from('{"a":1}\n{"b":2}')]).lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('handles a 50 MB line delivered in 64 KiB chunks', () => {
    const payload = 'x'.repeat(50 * 1024 * 1024);
    const all = Buffer.from(`{"p":"${payload}"}\n{"after":true}\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < all.length; i += 65536) chunks.push(all.subarray(i, i + 65536));
    const { lines } = split(chunks);
    expect(lines).toHaveLength(2);
    expect(lines[0].length).toBe(payload.length + 8);
    expect(lines[1]).toBe('{"after":true}');
  });

  it('reports lines above the limit and keeps going', () => {
    const { lines, tooLong } = split([Buffer.from('{"a":"' + 'y'.repeat(100) + '"}\n'), Buffer.from('{"ok":1}\n')], 50);
    expect(tooLong).toEqual([108]);
    expect(lines).toEqual(['{"ok":1}']);
  });
});

// The capture reader's byte-level line splitter (src/proxy/capture-lines.ts) keeps the line
// semantics of the `readline` it replaced (crlfDelay: Infinity over a utf8 stream): CRLF and a lone
// CR end lines also across chunks, UTF-8 split between chunks, lines far larger than a chunk, the
// last line without a newline, invalid UTF-8, and the capture reader's torn-line report.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { splitLines } from '../src/proxy/capture-lines.js';
import { readCapture } from '../src/proxy/capture.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function split(chunks: Buffer[]): Promise<string[]> {
  const out: string[] = [];
  for await (const line of splitLines(Readable.from(chunks))) out.push(line);
  return out;
}

/** What the old reader produced: readline over the same chunks read as a utf8 stream. */
async function viaReadline(chunks: Buffer[]): Promise<string[]> {
  const input = new PassThrough();
  input.setEncoding('utf8');
  const rl = createInterface({ input, crlfDelay: Infinity });
  const out: string[] = [];
  const done = (async () => {
    for await (const line of rl) out.push(line);
  })();
  for (const c of chunks) input.write(c);
  input.end();
  await done;
  return out;
}

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('capture line splitter', () => {
  it('CRLF split between two chunks is one line ending, not an empty line', async () => {
    expect(await split([b('{"a":1}\r'), b('\n{"b":2}\r\n')])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('a lone CR ends a line (as readline), CR CR LF is a line plus an empty one', async () => {
    expect(await split([b('a\rb\r\r\nc')])).toEqual(['a', 'b', '', 'c']);
    expect(await split([b('a\r'), b('b')])).toEqual(['a', 'b']);
  });

  it('a multi-byte character split between chunks decodes whole', async () => {
    const bytes = b('{"t":"héllo → 😀"}\n');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1)); // one byte per chunk
    expect(await split(chunks)).toEqual(['{"t":"héllo → 😀"}']);
  });

  it('a line far larger than a chunk arrives whole, and lines around it are intact', async () => {
    const big = 'x'.repeat(1_000_000) + 'é';
    const bytes = b(`first\n${big}\r\nlast`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
    const lines = await split(chunks);
    expect(lines.map((l) => l.length)).toEqual([5, big.length, 4]);
    expect(lines[1]).toBe(big);
  });

  it('empty lines are kept, a trailing newline adds no empty line, a last line without one is yielded', async () => {
    expect(await split([b('\n\na\n')])).toEqual(['', '', 'a']);
    expect(await split([b('a\nb')])).toEqual(['a', 'b']);
    expect(await split([b('a\r')])).toEqual(['a']);
    expect(await split([])).toEqual([]);
  });

  it('matches readline on random bytes (CR, LF, multi-byte and invalid UTF-8) under random chunkings', async () => {
    // deterministic pseudo-random (no flakiness), many shapes
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const atoms = [b('a'), b('{"x":1}'), b('\n'), b('\r'), b('\r\n'), b('é'), b('😀'), Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc3])];
    for (let round = 0; round < 300; round++) {
      const parts: Buffer[] = [];
      for (let i = 0, n = rnd(40); i < n; i++) parts.push(atoms[rnd(atoms.length)]!);
      const bytes = Buffer.concat(parts);
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; ) {
        const len = 1 + rnd(8);
        chunks.push(bytes.subarray(i, i + len));
        i += len;
      }
      const expected = await viaReadline(chunks);
      expect(await split(chunks), `bytes ${bytes.toString('hex')} chunks ${chunks.map((c) => c.length).join(',')}`).toEqual(expected);
    }
  });

  it('stopping early stops reading the source', async () => {
    const source = Readable.from([b('a\nb\n'), b('c\n')]);
    for await (const line of splitLines(source)) if (line === 'a') break;
    expect(source.destroyed).toBe(true);
  });

  it('readCapture over CRLF lines: frames read, a torn line reported with its line number', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-capture-lines-'));
    dirs.push(dir);
    const file = join(dir, 'c.ndjson');
    const header = JSON.stringify({ type: 'header', format: 'acp-kit-capture', formatVersion: 1, acpKit: '0', agent: { command: 'x', args: [] }, start: new Date(0).toISOString() });
    const frame = (seq: number): string => JSON.stringify({ seq, t: seq, dir: 'editor->agent', raw: JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'ping', params: { s: 'ü' } }), kind: 'request', method: 'ping', id: seq });
    writeFileSync(file, `${header}\r\n${frame(1)}\r\n\r\n{"seq":2,"t":\r\n${frame(3)}`);
    const r = await readCapture(file);
    expect(r.header?.format).toBe('acp-kit-capture');
    expect(r.frames.map((f) => f.seq)).toEqual([1, 3]);
    expect(JSON.parse(r.frames[0]!.raw).params.s).toBe('ü');
    expect(r.skipped).toEqual([{ line: 4, reason: 'not JSON (torn line)' }]);
  });
});

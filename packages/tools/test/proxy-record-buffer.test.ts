// The capture writer encodes corked lines into one reused, growing buffer: what it writes must stay byte for byte
// the JSON of each frame, whatever the line holds (multi-byte UTF-8, lone surrogates, lines far past the buffer).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureWriter, readCapture, type CaptureFrame } from '../src/proxy/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function capturePath(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-record-buf-'));
  dirs.push(d);
  return join(d, 'c.ndjson');
}

const update = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
  });

describe('capture writer: corked lines in one reused buffer', () => {
  it('multi-byte text, lone surrogates and lines far larger than the buffer are written as the JSON of each frame', async () => {
    const p = capturePath();
    const w = new CaptureWriter(p, { acpKit: '0.0.0-test', agent: ['a'] });
    const raws = [
      update('ü'.repeat(50_000)), // 2 bytes per unit, past the initial buffer
      update('😀'.repeat(40_000)), // surrogate pairs: 4 bytes per 2 units
      update('€'.repeat(30_000)), // 3 bytes per unit: the worst case the reservation must cover
      `{"jsonrpc":"2.0","method":"x","params":{"t":"lone \ud800 high"}}`,
      update('plain'),
    ];
    const written: CaptureFrame[] = [];
    // several chunks through the same writer: the buffer is reused after growing
    for (let round = 0; round < 3; round++) {
      w.cork();
      for (const r of raws) written.push(w.frame(round % 2 === 0 ? 'agent->editor' : 'editor->agent', r));
      w.meta({ protocolVersion: 2 });
      w.uncork();
    }
    w.close();
    const text = readFileSync(p, 'utf8');
    const lines = text.slice(0, -1).split('\n').slice(1);
    const frameLines = lines.filter((l) => l.startsWith('{"seq"'));
    expect(frameLines).toEqual(written.map((f) => JSON.stringify(f)));
    expect(Buffer.byteLength(text)).toBe(statSync(p).size);
    const c = await readCapture(p);
    expect(c.skipped).toEqual([]);
    expect(c.frames.map((f) => f.raw)).toEqual(written.map((f) => f.raw));
    expect(c.metas).toHaveLength(3);
  });

  it('a write outside cork goes straight to the file, and held lines are not written twice by a later uncork', () => {
    const p = capturePath();
    const w = new CaptureWriter(p, { acpKit: '0.0.0-test', agent: ['a'] });
    w.cork();
    w.frame('editor->agent', update('held'));
    w.uncork();
    const afterFirst = statSync(p).size;
    w.uncork(); // nothing held any more
    expect(statSync(p).size).toBe(afterFirst);
    w.frame('agent->editor', update('direct'));
    expect(statSync(p).size).toBeGreaterThan(afterFirst);
    w.close();
    const seqs = readFileSync(p, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l).seq);
    expect(seqs).toEqual([1, 2]);
  });
});

describe('capture writer: raw bytes escaped without re-serialising', () => {
  it('lines given with their bytes are written exactly as the JSON of the frame (quotes, backslashes, control bytes, invalid UTF-8)', async () => {
    const lines: Buffer[] = [
      Buffer.from(update('say "hi" \\ back\\slash ü € 😀 \u2028 \u007f')),
      Buffer.from('{"jsonrpc":"2.0","id":"a\\"b","result":{}}'),
      Buffer.from('tab\there\r'), // control bytes: JSON.stringify's short escapes
      Buffer.from('\u0001\u001f bell'),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // not UTF-8: decoded with U+FFFD
      Buffer.from([0xed, 0xa0, 0x80]), // an encoded lone surrogate is not UTF-8 either
      Buffer.from('\ufeff{"jsonrpc":"2.0","method":"x"}'), // a BOM is kept
      Buffer.from(''),
      Buffer.from(update('x'.repeat(200_000))), // past the buffer: it grows
    ];
    const withBytes = capturePath();
    const plain = capturePath();
    const a = new CaptureWriter(withBytes, { acpKit: '0.0.0-test', agent: ['a'], start: '2026-01-01T00:00:00.000Z' });
    const b = new CaptureWriter(plain, { acpKit: '0.0.0-test', agent: ['a'], start: '2026-01-01T00:00:00.000Z' });
    const written: CaptureFrame[] = [];
    a.cork();
    for (const bytes of lines)
      written.push(a.frame('agent->editor', bytes.toString('utf8'), undefined, 'agent', bytes));
    a.uncork();
    for (const bytes of lines) b.frame('agent->editor', bytes.toString('utf8'), undefined, 'agent');
    a.close();
    b.close();
    const frameLines = (p: string) =>
      readFileSync(p, 'utf8')
        .split('\n')
        .slice(1, -1)
        .map((l) => JSON.parse(l) as CaptureFrame);
    // bytes, not text: invalid UTF-8 copied through would decode to the same text but is not what JSON.stringify gives
    const file = readFileSync(withBytes);
    const body = file.subarray(file.indexOf(10) + 1);
    expect(body.equals(Buffer.from(written.map((f) => JSON.stringify(f) + '\n').join('')))).toBe(true);
    // the same capture the string path writes, apart from the clock
    expect(frameLines(withBytes).map(({ t: _t, ...f }) => f)).toEqual(frameLines(plain).map(({ t: _t, ...f }) => f));
    expect((await readCapture(withBytes)).frames.map((f) => f.raw)).toEqual(lines.map((l) => l.toString('utf8')));
  });
});

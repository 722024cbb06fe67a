// Recording speed without losing exactness: the light scan (scanFrame) agrees with the full decode or declines,
// the hand-built frame line is the JSON of the frame, and cork/uncork hold lines until one write.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureWriter, decodeFrame, readCapture, scanFrame } from '../src/proxy/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-record-'));
  dirs.push(d);
  return d;
}

const strip = (d: { kind: string; method?: string; id?: unknown } | undefined) =>
  d && {
    kind: d.kind,
    ...(d.method !== undefined ? { method: d.method } : {}),
    ...('id' in d && d.id !== undefined ? { id: d.id } : {}),
  };

describe('recording: light scan, frame lines, one write per chunk', () => {
  it('scanFrame finds kind, method and id of canonical lines exactly as the full decode does', () => {
    const canonical = [
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"id":7,"method":"x"}}}',
      '{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}',
      '{"jsonrpc":"2.0","id":"req-1","method":"fs/read_text_file","params":{}}',
      '{"jsonrpc":"2.0","id":-3,"method":"x"}',
      '{"jsonrpc":"2.0","method":"_ext/ping"}',
      '{"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn"}}',
      '{"jsonrpc":"2.0","id":"a","result":null}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
      '{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}',
    ];
    for (const raw of canonical) expect(strip(scanFrame(raw)), raw).toEqual(strip(decodeFrame(raw)));
  });

  it('scanFrame declines every other shape, so the full decode decides', () => {
    const other = [
      '{"id":1,"jsonrpc":"2.0","method":"x"}', // other key order
      '{"jsonrpc": "2.0", "method": "x"}', // spaces
      '{"jsonrpc":"2.0","method":"a\\"b","params":{}}', // escape in the method
      '{"jsonrpc":"2.0","id":"a\\"b","result":{}}', // escape in the id
      '{"jsonrpc":"2.0","id":1.5,"result":{}}', // not an integer id
      '{"jsonrpc":"2.0","id":1e3,"result":{}}',
      '{"jsonrpc":"2.0","params":{},"method":"x"}', // method after params
      '{"jsonrpc":"2.0","method":"x","params":{', // torn
      '{"jsonrpc":"2.0","id":1}', // neither method nor result nor error
      'not json',
      '{"jsonrpc":"2.0","method":"x"}\r', // a kept \r
    ];
    for (const raw of other) expect(scanFrame(raw), raw).toBeUndefined();
  });

  it('frame lines written by hand read back as the very frames (quotes, newlines, unicode, ids of every type)', async () => {
    const p = join(tmp(), 'c.ndjson');
    const w = new CaptureWriter(p, { acpKit: '0.0.0-test', agent: ['a'] });
    const raws = [
      '{"jsonrpc":"2.0","id":"x\\"y","method":"m","params":{"text":"line\\nbreak \\u2028 ü 😀"}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"e"}}',
      'garbage "quoted" \\ backslash\r',
      '{"jsonrpc":"2.0","method":"session/update","params":{}}',
    ];
    const written = raws.map((r) => w.frame('agent->editor', r, scanFrame(r) ?? decodeFrame(r)));
    w.close();
    const lines = readFileSync(p, 'utf8').trim().split('\n').slice(1);
    expect(lines).toEqual(written.map((f) => JSON.stringify(f)));
    const c = await readCapture(p);
    expect(c.frames).toEqual(written);
    expect(c.frames.map((f) => f.raw)).toEqual(raws);
  });

  it('cork holds frames and meta lines in order until uncork writes them; close writes what is still held', () => {
    const p = join(tmp(), 'c.ndjson');
    const w = new CaptureWriter(p, { acpKit: '0.0.0-test', agent: ['a'] });
    const headerSize = statSync(p).size;
    w.cork();
    w.frame('editor->agent', '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}');
    w.frame('agent->editor', '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2}}');
    w.meta({ protocolVersion: 2 });
    expect(statSync(p).size).toBe(headerSize);
    w.uncork();
    const afterUncork = readFileSync(p, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type?: string; seq?: number });
    expect(afterUncork.map((l) => l.type ?? `frame ${l.seq}`)).toEqual(['header', 'frame 1', 'frame 2', 'meta']);
    // not corked: written at once
    w.frame('editor->agent', '{"jsonrpc":"2.0","method":"x"}');
    expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(5);
    w.cork();
    w.frame('editor->agent', '{"jsonrpc":"2.0","method":"y"}');
    w.close();
    expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(6);
  });
});

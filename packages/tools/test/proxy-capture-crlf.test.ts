// The capture reader over CRLF line endings: frames are read, a blank line keeps the numbering, and a
// torn line is reported with its line number.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readCapture } from '../src/captures/capture.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('readCapture over CRLF lines: frames read, a torn line reported with its line number', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-capture-lines-'));
  dirs.push(dir);
  const file = join(dir, 'c.ndjson');
  const header = JSON.stringify({
    type: 'header',
    format: 'acp-kit-capture',
    formatVersion: 1,
    acpKit: '0',
    agent: { command: 'x', args: [] },
    start: new Date(0).toISOString(),
  });
  const frame = (seq: number): string =>
    JSON.stringify({
      seq,
      t: seq,
      dir: 'editor->agent',
      raw: JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'ping', params: { s: 'ü' } }),
      kind: 'request',
      method: 'ping',
      id: seq,
    });
  writeFileSync(file, `${header}\r\n${frame(1)}\r\n\r\n{"seq":2,"t":\r\n${frame(3)}`);
  const r = await readCapture(file);
  expect(r.header?.format).toBe('acp-kit-capture');
  expect(r.frames.map((f) => f.seq)).toEqual([1, 3]);
  expect(JSON.parse(r.frames[0]!.raw).params.s).toBe('ü');
  expect(r.skipped).toEqual([{ line: 4, reason: 'not JSON (torn line)' }]);
});

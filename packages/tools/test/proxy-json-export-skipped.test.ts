// Review of the JSON export reader: a frame it skips was reported at "line 0"; it is now the line
// of the file where that element of `frames` starts (the export is pretty-printed, as
// `acp-kit captures export --format json` writes it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readCapture } from '../src/proxy/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('a frame of a JSON export that is not a frame is reported at the line where it starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acp-json-export-'));
  dirs.push(dir);
  const header = {
    type: 'header',
    format: 'acp-kit-capture',
    formatVersion: 1,
    acpKit: '0.0.0',
    agent: ['agent'],
    start: '2026-01-01T00:00:00.000Z',
  };
  const good = {
    seq: 1,
    t: 0,
    dir: 'editor->agent',
    raw: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
    kind: 'request',
    method: 'initialize',
    id: 1,
  };
  const bad = { seq: 'two', dir: 'sideways' };
  // the exporter's own layout (src/cli/commands/captures.ts)
  const text = `${JSON.stringify({ header, metas: [], frames: [good, bad] }, null, 2)}\n`;
  const path = join(dir, 'export.json');
  writeFileSync(path, text);
  const c = await readCapture(path);
  expect(c.frames.map((f) => f.seq)).toEqual([1]);
  const badLine = text.split('\n').findIndex((l) => l.includes('"seq": "two"'));
  // the element starts at its "{", the line before its first key
  expect(c.skipped).toEqual([{ line: badLine, reason: 'frames[1] is not a frame' }]);
});

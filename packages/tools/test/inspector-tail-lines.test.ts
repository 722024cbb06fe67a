/**
 * A capture that is still being written (CaptureTail) reads its lines exactly as a saved one
 * (openCapture): the same lenient field checks, so the live page and a later reload show the same
 * frames, and a line that is JSON but not an object is skipped instead of breaking the tail.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureTail, loadCapture } from '../src/inspector/index.js';
import { tempDir } from '../../../test/support/temp.js';

const tails: CaptureTail[] = [];
afterEach(() => {
  for (const t of tails.splice(0)) t.close();
});

describe('CaptureTail reads lines as openCapture does', () => {
  it('fills a frame without kind or time, skips non-object JSON lines and normalizes header and meta like a saved capture', async () => {
    const path = join(tempDir('acp-inspector-tail-'), 'live.acpcap');
    const lines = [
      {
        type: 'header',
        format: 'acp-kit-capture',
        formatVersion: 1,
        acpKit: '0.0.0',
        agent: 'not-an-array',
        start: '2025-01-01T00:00:00.000Z',
      },
      null,
      42,
      // no `t`, no `kind`: a saved capture reads t = 0 and the kind from the raw line
      {
        type: 'frame',
        seq: 1,
        dir: 'editor->agent',
        raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2 } }),
      },
      { type: 'meta', seq: 1, t: 3, protocolVersion: 'two' },
      {
        type: 'frame',
        seq: 2,
        t: 5,
        dir: 'agent->editor',
        raw: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 2 } }),
        kind: 'response',
      },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');

    const saved = await loadCapture(path);
    const tail = new CaptureTail(path);
    tails.push(tail);

    expect(saved.frames.map((f) => [f.seq, f.t, f.kind, f.method])).toEqual([
      [1, 0, 'request', undefined],
      [2, 5, 'response', undefined],
    ]);
    expect(tail.model.frames).toEqual(saved.frames);
    expect(tail.model.header).toEqual(saved.header);
    expect(tail.model.header?.agent).toEqual([]);
    expect(tail.model.metas).toEqual(saved.metas);
    expect(tail.model.metas[0]?.protocolVersion).toBeUndefined();
  });
});

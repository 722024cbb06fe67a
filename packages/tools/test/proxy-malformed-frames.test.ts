// Captures and frames of the wrong shape: the capture reader and the validator read parsed JSON through
// checks (src/protocol/json.ts), so a line that is JSON but not the expected object is skipped or reported,
// never a TypeError, and no field of the wrong type reaches a typed frame, header or meta.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureFormatError, CaptureValidator, readCapture, type CaptureFrame } from '../src/proxy/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function captureFile(lines: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-malformed-'));
  dirs.push(dir);
  const path = join(dir, 'c.ndjson');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

const HEADER = JSON.stringify({
  type: 'header',
  format: 'acp-kit-capture',
  formatVersion: 1,
  acpKit: '0.0.0-test',
  agent: ['a'],
  start: '2026-11-20T10:00:00.000Z',
});
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2 } });

describe('capture reader: JSON lines of the wrong shape', () => {
  it('a first line that is JSON null is no capture header: CaptureFormatError, not a TypeError', async () => {
    const path = captureFile(['null']);
    await expect(readCapture(path)).rejects.toBeInstanceOf(CaptureFormatError);
  });

  it('null and array lines among the frames are skipped as "not a frame"; the frames around them are read', async () => {
    const frame = {
      type: 'frame',
      seq: 1,
      t: 0.5,
      dir: 'editor->agent',
      raw: INIT,
      kind: 'request',
      method: 'initialize',
      id: 1,
    };
    const c = await readCapture(captureFile([HEADER, 'null', JSON.stringify(frame), '[1,2]']));
    expect(c.frames).toEqual([
      { seq: 1, t: 0.5, dir: 'editor->agent', raw: INIT, kind: 'request', method: 'initialize', id: 1 },
    ]);
    expect(c.skipped).toEqual([
      { line: 2, reason: 'not a frame' },
      { line: 4, reason: 'not a frame' },
    ]);
  });

  it('a frame with an unknown kind takes its kind from the raw line; method and id of the wrong type are left out', async () => {
    const frame = {
      type: 'frame',
      seq: 1,
      t: 1,
      dir: 'editor->agent',
      raw: INIT,
      kind: 'bogus',
      method: 7,
      id: { x: 1 },
    };
    const c = await readCapture(captureFile([HEADER, JSON.stringify(frame)]));
    expect(c.frames).toEqual([{ seq: 1, t: 1, dir: 'editor->agent', raw: INIT, kind: 'request' }]);
  });

  it('meta fields of the wrong type are left out, the others kept', async () => {
    const meta = { type: 'meta', seq: 2, t: 3, protocolVersion: '2', exitCode: 0, signal: null };
    const c = await readCapture(captureFile([HEADER, JSON.stringify(meta)]));
    expect(c.metas).toEqual([{ type: 'meta', seq: 2, t: 3, exitCode: 0, signal: null }]);
  });
});

describe('CaptureValidator: frames whose line is not the JSON-RPC object their kind says', () => {
  const frame = (
    seq: number,
    dir: CaptureFrame['dir'],
    kind: CaptureFrame['kind'],
    message: unknown,
    method?: string,
  ): CaptureFrame => {
    const f: CaptureFrame = { seq, t: seq, dir, raw: JSON.stringify(message), kind };
    if (method) f.method = method;
    return f;
  };

  it('a "request" frame whose line is null is a schema violation naming the message, not a TypeError', () => {
    const v = new CaptureValidator({ protocolVersion: 2 });
    const out = v.push(frame(1, 'editor->agent', 'request', null, 'initialize'));
    expect(out).toEqual([
      {
        rule: 'schema',
        requirement: 'schema/v2',
        seqs: [1],
        message: 'initialize: the message: must be a JSON-RPC 2.0 request, notification or response object',
      },
    ]);
  });

  it('a permission request answered after session/cancel with "error": null is reported (bad error object, not cancelled), not a TypeError', () => {
    const v = new CaptureValidator({ protocolVersion: 2 });
    const out = [
      ...v.push(
        frame(
          1,
          'agent->editor',
          'request',
          {
            jsonrpc: '2.0',
            id: 7,
            method: 'session/request_permission',
            params: { sessionId: 's1', toolCall: { toolCallId: 't1' }, options: [] },
          },
          'session/request_permission',
        ),
      ),
      ...v.push(
        frame(
          2,
          'editor->agent',
          'notification',
          { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } },
          'session/cancel',
        ),
      ),
      ...v.push(frame(3, 'editor->agent', 'error', { jsonrpc: '2.0', id: 7, error: null })),
    ];
    // (the hand-written permission params are no complete v2 request: only what frame 3 causes matters here)
    const atAnswer = out.filter((x) => x.seqs.at(-1) === 3);
    expect(atAnswer.map((x) => [x.rule, x.seqs])).toEqual([
      ['schema', [3]],
      ['permission-pending-after-cancel', [1, 2, 3]],
    ]);
    expect(atAnswer[0]!.message).toContain('error: must be {code: integer, message: string, data?}');
  });
});

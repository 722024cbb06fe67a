// Issue 25 item 3: the client side a replay gives the live agent, on its own: permission answers
// as recorded (the same kind of option, whatever the live ids), by policy, or cancelled; fs/*
// confined to the sessions' roots; any other method answered as recorded, with learnt ids.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CaptureFrame } from '../src/captures/frame.js';
import { ErrorCode } from '../../protocol/src/errors.js';
import { AnswerIndex } from '../src/proxy/replay/answer-index.js';
import { ValueMap } from '../src/proxy/replay/id-map.js';
import { ReplayClientServices, type ReplayPermission } from '../src/proxy/replay/replay-services.js';
import { scriptFromFrames } from '../src/proxy/replay/script.js';

function script(lines: Array<['e' | 'a', Record<string, unknown>]>) {
  const frames: CaptureFrame[] = lines.map(([d, m], i) => ({
    seq: i + 1,
    t: i,
    dir: d === 'e' ? 'editor->agent' : 'agent->editor',
    raw: JSON.stringify({ jsonrpc: '2.0', ...m }),
    kind: 'invalid',
  }));
  return scriptFromFrames(frames).frames;
}

const RECORDED_OPTIONS = [
  { optionId: 'rec-allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'rec-reject', name: 'Reject', kind: 'reject_once' },
];
const LIVE_OPTIONS = [
  { optionId: 'live-1', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'live-2', name: 'Always', kind: 'allow_always' },
  { optionId: 'live-3', name: 'No', kind: 'reject_once' },
];

/** A recording where the editor answered two permission requests (reject, then an error) and one `ext/lookup`. */
const FRAMES = script([
  ['a', { id: 10, method: 'session/request_permission', params: { options: RECORDED_OPTIONS } }],
  ['e', { id: 10, result: { outcome: { outcome: 'selected', optionId: 'rec-reject' } } }],
  ['a', { id: 11, method: 'session/request_permission', params: { options: RECORDED_OPTIONS } }],
  ['e', { id: 11, error: { code: -32000, message: 'editor went away' } }],
  ['a', { id: 12, method: 'ext/lookup', params: {} }],
  ['e', { id: 12, result: { sessionId: 'rec-session', found: true } }],
]);

const logs: string[] = [];
const dirs: string[] = [];
afterEach(() => {
  logs.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function services(policy: ReplayPermission = 'recorded', values = new ValueMap()) {
  return new ReplayClientServices(new AnswerIndex(FRAMES), values, policy, (l) => logs.push(l));
}

describe('ReplayClientServices', () => {
  it('recorded: picks the live option of the kind the recorded client chose, then passes the recorded error, then cancels', async () => {
    const s = services();
    expect(await s.answer('session/request_permission', { options: LIVE_OPTIONS })).toEqual({
      result: { outcome: { outcome: 'selected', optionId: 'live-3' } },
    });
    expect(await s.answer('session/request_permission', { options: LIVE_OPTIONS })).toEqual({
      error: { code: -32000, message: 'editor went away' },
    });
    expect(await s.answer('session/request_permission', { options: LIVE_OPTIONS })).toEqual({
      result: { outcome: { outcome: 'cancelled' } },
    });
    expect(logs).toEqual(['permission request #3 has no recorded answer; answering cancelled']);
  });

  it('recorded: a live request that does not offer the chosen kind is answered cancelled, with a note', async () => {
    const s = services();
    const r = await s.answer('session/request_permission', { options: [LIVE_OPTIONS[0]] });
    expect(r).toEqual({ result: { outcome: { outcome: 'cancelled' } } });
    expect(logs[0]).toContain('chose rec-reject (reject_once), which the live request does not offer');
  });

  it('allow / reject: the first offered option of that kind, without reading the recording', async () => {
    expect(await services('allow').answer('session/request_permission', { options: LIVE_OPTIONS })).toEqual({
      result: { outcome: { outcome: 'selected', optionId: 'live-1' } },
    });
    expect(await services('reject').answer('session/request_permission', { options: LIVE_OPTIONS })).toEqual({
      result: { outcome: { outcome: 'selected', optionId: 'live-3' } },
    });
    expect(await services('reject').answer('session/request_permission', { options: [LIVE_OPTIONS[1]] })).toEqual({
      result: { outcome: { outcome: 'cancelled' } },
    });
  });

  it('another method: the recorded answer with the ids learnt so far; past the recording, method not found', async () => {
    const values = new ValueMap();
    values.learn({ sessionId: 'rec-session' }, { sessionId: 'live-session' });
    const s = services('recorded', values);
    expect(await s.answer('ext/lookup', {})).toEqual({ result: { sessionId: 'live-session', found: true } });
    expect(await s.answer('ext/lookup', {})).toMatchObject({ error: { code: ErrorCode.MethodNotFound } });
  });

  it('fs/*: refused before a session gave roots, then served inside them and refused outside', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'replay-services-')));
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'replay-services-out-')));
    dirs.push(root, other);
    writeFileSync(join(root, 'a.txt'), 'inside\n');
    writeFileSync(join(other, 'b.txt'), 'outside\n');
    const s = services();
    const before = await s.answer('fs/read_text_file', { sessionId: 's', path: join(root, 'a.txt') });
    expect(before).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    s.addSessionRoots({ cwd: root, additionalDirectories: [] });
    expect(await s.answer('fs/read_text_file', { sessionId: 's', path: join(root, 'a.txt') })).toEqual({
      result: { content: 'inside\n' },
    });
    const outside = await s.answer('fs/read_text_file', { sessionId: 's', path: join(other, 'b.txt') });
    expect(outside.error).toBeDefined();
    await s.close();
  });
});

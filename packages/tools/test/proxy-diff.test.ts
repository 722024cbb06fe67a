// Capture diff (diffCaptures / acp-kit diff): alignment ignoring ids and timing, field differences at the right place,
// capabilities and versions, and two real recordings of the same scripted run through the proxy.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { diffCaptures, readCapture, type CaptureDiff } from '../src/proxy/index.js';
import type { ClientConnection } from '../../client/src/index.js';
import { A2E, E2A, frames, rpc, writeCaptureFile } from '../../../test/support/capture-builder.js';
import { recordTurn } from '../../../test/support/record-turn.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const dirs: string[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-diff-'));
  dirs.push(d);
  return d;
}

interface RunOpts {
  sid?: string;
  ids?: [number, number, number];
  t?: number;
  loadSession?: boolean;
  text?: string;
  extraChunk?: boolean;
  tool?: [string, string];
  version?: number;
}

/** One scripted v1 run; the knobs change generated ids, timing or content. */
function run(o: RunOpts = {}) {
  const sid = o.sid ?? 'sess_1';
  const [i0, i1, i2] = o.ids ?? [0, 1, 2];
  const t = o.t ?? 1;
  const [tc1, tc2] = o.tool ?? ['call_1', 'call_1'];
  return frames([
    [0, E2A, rpc.req(i0, 'initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } })],
    [
      5 * t,
      A2E,
      rpc.ok(i0, {
        protocolVersion: o.version ?? 1,
        agentCapabilities: { loadSession: o.loadSession ?? true },
        authMethods: [],
      }),
    ],
    [6 * t, E2A, rpc.req(i1, 'session/new', { cwd: '/w', mcpServers: [] })],
    [9 * t, A2E, rpc.ok(i1, { sessionId: sid })],
    [10 * t, E2A, rpc.req(i2, 'session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'hi' }] })],
    [11 * t, A2E, rpc.update(sid, { sessionUpdate: 'tool_call', toolCallId: tc1, title: 'read' })],
    [12 * t, A2E, rpc.update(sid, { sessionUpdate: 'tool_call_update', toolCallId: tc2, status: 'completed' })],
    [
      13 * t,
      A2E,
      rpc.update(sid, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: o.text ?? 'hello' } }),
    ],
    ...(o.extraChunk
      ? [
          [
            13.5 * t,
            A2E,
            rpc.update(sid, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '!' } }),
          ] as const,
        ]
      : []),
    [14 * t, A2E, rpc.update(sid, { sessionUpdate: 'session_info_update', updatedAt: `2026-11-2${t}T10:00:00Z` })],
    [20 * t, A2E, rpc.ok(i2, { stopReason: 'end_turn' })],
  ]);
}

describe('capture diff', () => {
  it('frames that only moved past frames of the other direction are no difference; a move within one direction is', () => {
    // the agent's notification after session/new and the client's next request race through the proxy
    const commands = rpc.update('sess_1', { sessionUpdate: 'available_commands_update', availableCommands: [] });
    const prompt = rpc.req(2, 'session/prompt', { sessionId: 'sess_1', prompt: [{ type: 'text', text: 'hi' }] });
    const chunk = rpc.update('sess_1', {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'hello' },
    });
    const head = [
      [0, E2A, rpc.req(1, 'session/new', { cwd: '/w', mcpServers: [] })],
      [1, A2E, rpc.ok(1, { sessionId: 'sess_1' })],
    ] as const;
    const tail = (first: unknown, second: unknown) =>
      [...head, [2, A2E, first], [3, A2E, second], [4, A2E, rpc.ok(2, { stopReason: 'end_turn' })]] as const;
    const a = frames([
      ...head,
      [2, A2E, commands],
      [3, E2A, prompt],
      [4, A2E, chunk],
      [5, A2E, rpc.ok(2, { stopReason: 'end_turn' })],
    ]);
    const b = frames([
      ...head,
      [2, E2A, prompt],
      [3, A2E, commands],
      [4, A2E, chunk],
      [5, A2E, rpc.ok(2, { stopReason: 'end_turn' })],
    ]);
    const crossed = diffCaptures(a, b);
    expect(crossed.summary).toEqual({ aligned: 6, changed: 0, removed: 0, added: 0 });
    expect(crossed.equal).toBe(true);
    // the same two agent frames in the other order (one direction): a difference
    const swapped = diffCaptures(frames([...tail(commands, chunk)]), frames([...tail(chunk, commands)]));
    expect(swapped.equal).toBe(false);
    expect(swapped.summary.removed + swapped.summary.added).toBe(2);
  });

  it('same run with other request ids, session id, tool call ids, timestamps and timing: no differences; latency deltas reported', () => {
    const d = diffCaptures(run(), run({ sid: 'sess_other', ids: [7, 'x', 9], t: 2, tool: ['call_9', 'call_9'] }));
    expect(d.differences).toEqual([]);
    expect(d).toMatchObject({
      equal: true,
      alignment: 'lcs',
      summary: { aligned: 10, changed: 0, removed: 0, added: 0 },
      capabilities: [],
      versionsEqual: true,
    });
    expect(d.latency.find((l) => l.method === 'session/prompt')).toEqual({
      method: 'session/prompt',
      dir: E2A,
      a: { count: 1, p50: 10 },
      b: { count: 1, p50: 20 },
      deltaP50Ms: 10,
    });
  });

  it('a changed field is reported with its path and both frames', () => {
    const d = diffCaptures(run(), run({ text: 'hullo' }));
    expect(d.equal).toBe(false);
    expect(d.summary).toEqual({ aligned: 10, changed: 1, removed: 0, added: 0 });
    expect(d.differences).toEqual([
      {
        type: 'changed',
        a: expect.objectContaining({ seq: 8, method: 'session/update' }),
        b: expect.objectContaining({ seq: 8 }),
        fields: [{ path: 'params.update.content.text', a: 'hello', b: 'hullo' }],
      },
    ]);
  });

  it('an extra frame in B is added at its place; the frames after it still align', () => {
    const d = diffCaptures(run(), run({ extraChunk: true }));
    expect(d.summary).toEqual({ aligned: 10, changed: 0, removed: 0, added: 1 });
    expect(d.differences).toEqual([
      {
        type: 'added',
        count: 1,
        first: expect.objectContaining({ seq: 9, dir: A2E, kind: 'notification', method: 'session/update' }),
        last: expect.objectContaining({ seq: 9 }),
        afterOtherSeq: 8,
      },
    ]);
    // and the other way round it is removed
    expect(diffCaptures(run({ extraChunk: true }), run()).differences).toEqual([
      expect.objectContaining({
        type: 'removed',
        count: 1,
        first: expect.objectContaining({ seq: 9 }),
        afterOtherSeq: 8,
      }),
    ]);
  });

  it('a different capability and a different negotiated version are differences of their own', () => {
    const d = diffCaptures(run(), run({ loadSession: false, version: 2 }));
    expect(d.equal).toBe(false);
    expect(d.capabilities).toEqual([{ path: 'agent.loadSession', a: true, b: false }]);
    expect(d.versionsEqual).toBe(false);
    expect(d.a.version).toEqual({ offered: 1, negotiated: 1 });
    expect(d.b.version).toEqual({ offered: 1, negotiated: 2 });
    expect(d.differences).toEqual([
      expect.objectContaining({
        type: 'changed',
        fields: [
          { path: 'result.protocolVersion', a: 1, b: 2 },
          { path: 'result.agentCapabilities.loadSession', a: true, b: false },
        ],
      }),
    ]);
  });

  it('generated ids must correspond consistently: one tool call in A that is two in B is a difference', () => {
    const d = diffCaptures(run({ tool: ['call_1', 'call_1'] }), run({ tool: ['call_1', 'call_2'] }));
    expect(d.differences).toEqual([
      expect.objectContaining({
        type: 'changed',
        a: expect.objectContaining({ seq: 7 }),
        fields: [{ path: 'params.update.toolCallId', a: 'call_1', b: 'call_2' }],
      }),
    ]);
  });

  it('captures too different for the exact alignment in its time budget fall back to aligning runs of frames', () => {
    const chunk = (i: number) =>
      rpc.update('s', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(i % 3) } });
    const mk = (n: number, every: number) =>
      frames(
        Array.from({ length: n }, (_, i) => [i, A2E, i % every === 0 ? rpc.note('_x/tick', {}) : chunk(i)] as const),
      );
    const a = mk(3000, 7);
    const b = mk(3000, 5);
    // a budget no loaded machine exhausts: the exact alignment must not depend on the machine's speed
    const exact = diffCaptures(a, b, { timeoutMs: 120_000 });
    expect(exact.alignment).toBe('lcs');
    const fallback = diffCaptures(a, b, { timeoutMs: 0 });
    expect(fallback.alignment).toBe('runs');
    // every frame is accounted for either way
    for (const x of [exact, fallback]) expect(x.summary.aligned + x.summary.removed).toBe(3000);
    for (const x of [exact, fallback]) expect(x.summary.aligned + x.summary.added).toBe(3000);
    expect(fallback.summary.aligned).toBeLessThanOrEqual(exact.summary.aligned);
  });

  it('acp-kit diff: exit 1 with a readable report and a stable --json shape; exit 2 for a missing file', () => {
    const d = tmp();
    writeCaptureFile(join(d, 'a.ndjson'), run());
    writeCaptureFile(join(d, 'b.ndjson'), run({ text: 'hullo', extraChunk: true }));
    const text = spawnSync(process.execPath, [BIN, 'diff', join(d, 'a.ndjson'), join(d, 'b.ndjson')], {
      encoding: 'utf8',
    });
    expect(text.status).toBe(1);
    expect(text.stdout).toContain(
      '~ A#8 / B#8  agent->editor notification session/update\n    params.update.content.text: "hello" -> "hullo"',
    );
    expect(text.stdout).toContain('+ B#9  agent->editor notification session/update  (only in B, after A#8)');
    expect(text.stdout).toMatch(/the captures differ\n$/);
    const json = spawnSync(process.execPath, [BIN, 'diff', join(d, 'a.ndjson'), join(d, 'b.ndjson'), '--json'], {
      encoding: 'utf8',
    });
    expect(json.status).toBe(1);
    const out = JSON.parse(json.stdout.split('\n')[0]!) as CaptureDiff & {
      type: string;
      formatVersion: number;
      paths: unknown;
    };
    expect(Object.keys(out)).toEqual([
      'type',
      'formatVersion',
      'paths',
      'equal',
      'alignment',
      'a',
      'b',
      'versionsEqual',
      'capabilities',
      'summary',
      'differences',
      'truncated',
      'latency',
    ]);
    expect(out).toMatchObject({ type: 'diff', formatVersion: 1, equal: false, summary: { changed: 1, added: 1 } });
    const same = spawnSync(process.execPath, [BIN, 'diff', join(d, 'a.ndjson'), join(d, 'a.ndjson')], {
      encoding: 'utf8',
    });
    expect(same.status).toBe(0);
    expect(same.stdout).toMatch(/no differences \(timing aside\)\n$/);
    const missing = spawnSync(process.execPath, [BIN, 'diff', join(d, 'a.ndjson'), join(d, 'nope.ndjson')], {
      encoding: 'utf8',
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`no such capture file: ${join(d, 'nope.ndjson')}`);
    const usage = spawnSync(process.execPath, [BIN, 'diff', join(d, 'a.ndjson')], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
  });

  // the recording proxy runs in this process (as acp-kit proxy --record does it) in front of a real
  // acp-kit agent: the diff of real captures is the point here, the proxy's process is proxy-forward's
  it('two recordings of the same run of the built-in agent through the recording proxy: no differences', async () => {
    const d = tmp();
    const work = join(d, 'w');
    mkdirSync(work);
    writeFileSync(join(work, 'a.txt'), 'hello\n');
    for (const name of ['a', 'b']) await recordTurn(work, 2, 'read a.txt', conns, join(d, `${name}.ndjson`));
    const [a, b] = await Promise.all([readCapture(join(d, 'a.ndjson')), readCapture(join(d, 'b.ndjson'))]);
    // the runs really differ in generated ids, so equality is the diff's doing
    const sessionIds = [a, b].map(
      (c) =>
        (
          JSON.parse(c.frames.find((f) => f.kind === 'response' && f.raw.includes('"sessionId"'))!.raw) as {
            result: { sessionId: string };
          }
        ).result.sessionId,
    );
    expect(sessionIds[0]).not.toBe(sessionIds[1]);
    const d1 = diffCaptures(a.frames, b.frames);
    expect(d1.differences).toEqual([]);
    expect(d1.equal).toBe(true);
    expect(d1.summary.aligned).toBe(a.frames.length);
    const cli = spawnSync(process.execPath, [BIN, 'diff', join(d, 'a.ndjson'), join(d, 'b.ndjson')], {
      encoding: 'utf8',
    });
    expect(cli.status, cli.stdout).toBe(0);
  });
});

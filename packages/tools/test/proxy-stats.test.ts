// Capture statistics (captureStats / acp-kit stats) checked against hand-built captures with known, synthetic times.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { captureStats, percentile, RequestPairer, summarizeLatencies } from '../src/proxy/index.js';
import { A2E, E2A, frames, rpc, writeCaptureFile } from '../../../test/support/capture-builder.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const chunk = (sid: string, text: string) =>
  rpc.update(sid, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

/** v1: two turns (end_turn, then an error response), a permission request, an unanswered request. */
const V1 = frames([
  [0, E2A, rpc.req(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} })],
  [10, A2E, rpc.ok(0, { protocolVersion: 1, agentCapabilities: {}, authMethods: [] })],
  [20, E2A, rpc.req(1, 'session/new', { cwd: '/w', mcpServers: [] })],
  [50, A2E, rpc.ok(1, { sessionId: 's1' })],
  [100, E2A, rpc.req(2, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] })],
  [130, A2E, rpc.update('s1', { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'read' })],
  [150, A2E, chunk('s1', 'a')],
  [160, A2E, chunk('s1', 'b')],
  [
    170,
    A2E,
    rpc.req(0, 'session/request_permission', { sessionId: 's1', toolCall: { toolCallId: 't1' }, options: [] }),
  ],
  [175, E2A, rpc.ok(0, { outcome: { outcome: 'cancelled' } })],
  [400, A2E, rpc.ok(2, { stopReason: 'end_turn' })],
  [500, E2A, rpc.req(3, 'session/prompt', { sessionId: 's1', prompt: [] })],
  [520, A2E, rpc.err(3, -32602, 'Invalid params: params.prompt: must not be empty')],
  [600, E2A, rpc.req(4, 'session/set_mode', { sessionId: 's1', modeId: 'x' })],
  [610, A2E, 'not json at all'],
]);

describe('capture stats', () => {
  it('per method counts, latency, bytes, errors by code, and v1 turns (time to first chunk, duration, stop reason)', async () => {
    const s = await captureStats(V1);
    expect(s.frames).toBe(15);
    expect(s.durationMs).toBe(610);
    expect(s.protocolVersion).toBe(1);
    expect(s.invalid).toBe(1);
    const bytes = (dir: string) =>
      V1.filter((f) => f.dir === dir).reduce((n, f) => n + Buffer.byteLength(f.raw) + 1, 0);
    expect(s.bytes).toEqual({ 'editor->agent': bytes(E2A), 'agent->editor': bytes(A2E) });
    const m = Object.fromEntries(s.methods.map((x) => [`${x.method} ${x.dir}`, x]));
    expect(m['initialize editor->agent']).toMatchObject({
      requests: 1,
      responses: 1,
      errors: 0,
      unanswered: 0,
      latency: { count: 1, p50: 10, p99: 10, max: 10 },
    });
    expect(m['session/new editor->agent']!.latency).toEqual({ count: 1, p50: 30, p99: 30, max: 30 });
    // prompt latencies 300 and 20: nearest-rank p50 is the smaller, p99 and max the larger
    expect(m['session/prompt editor->agent']).toMatchObject({
      requests: 2,
      responses: 1,
      errors: 1,
      latency: { count: 2, p50: 20, p99: 300, max: 300 },
    });
    expect(m['session/prompt editor->agent']!.bytes).toBe(
      [4, 10, 11, 12].reduce((n, i) => n + Buffer.byteLength(V1[i]!.raw) + 1, 0),
    );
    expect(m['session/request_permission agent->editor']).toMatchObject({
      requests: 1,
      responses: 1,
      latency: { p50: 5 },
    });
    expect(m['session/update agent->editor']).toMatchObject({ requests: 0, notifications: 3, latency: null });
    expect(m['session/set_mode editor->agent']).toMatchObject({ requests: 1, unanswered: 1, latency: null });
    expect(s.errors).toEqual([
      {
        code: -32602,
        count: 1,
        message: 'Invalid params: params.prompt: must not be empty',
        methods: ['session/prompt'],
      },
    ]);
    expect(s.updates).toEqual({ agent_message_chunk: 2, tool_call: 1 });
    expect(s.turns).toEqual([
      {
        sessionId: 's1',
        promptSeq: 5,
        t: 100,
        timeToFirstChunkMs: 50,
        durationMs: 300,
        endSeq: 11,
        stopReason: 'end_turn',
      },
      {
        sessionId: 's1',
        promptSeq: 12,
        t: 500,
        timeToFirstChunkMs: null,
        durationMs: 20,
        endSeq: 13,
        stopReason: null,
        error: { code: -32602, message: 'Invalid params: params.prompt: must not be empty' },
      },
    ]);
    expect(s.stopReasons).toEqual({ end_turn: 1, '(error response)': 1 });
  });

  it('v2 turns end at the idle state_update with its stop reason, not at the prompt acknowledgement', async () => {
    const s = await captureStats(
      frames([
        [0, E2A, rpc.req(0, 'initialize', { protocolVersion: 2, info: { name: 'e', version: '1' } })],
        [5, A2E, rpc.ok(0, { protocolVersion: 2, info: { name: 'a', version: '1' } })],
        [10, E2A, rpc.req(1, 'session/prompt', { sessionId: 's', prompt: [{ type: 'text', text: 'x' }] })],
        [12, A2E, rpc.ok(1, { messageId: 'u1' })],
        [15, A2E, rpc.update('s', { sessionUpdate: 'state_update', state: 'running' })],
        // another session's chunk does not count for this turn
        [
          20,
          A2E,
          rpc.update('other', {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'm0',
            content: { type: 'text', text: 'z' },
          }),
        ],
        [
          42,
          A2E,
          rpc.update('s', {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'm1',
            content: { type: 'text', text: 'y' },
          }),
        ],
        [90, A2E, rpc.update('s', { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' })],
        [100, E2A, rpc.req(2, 'session/prompt', { sessionId: 's', prompt: [{ type: 'text', text: 'again' }] })],
        [101, A2E, rpc.ok(2, { messageId: 'u2' })],
        [102, A2E, rpc.update('s', { sessionUpdate: 'state_update', state: 'running' })],
      ]),
    );
    expect(s.protocolVersion).toBe(2);
    expect(s.turns).toEqual([
      {
        sessionId: 's',
        promptSeq: 3,
        t: 10,
        timeToFirstChunkMs: 32,
        durationMs: 80,
        endSeq: 8,
        stopReason: 'end_turn',
      },
      {
        sessionId: 's',
        promptSeq: 9,
        t: 100,
        timeToFirstChunkMs: null,
        durationMs: null,
        endSeq: null,
        stopReason: null,
      },
    ]);
    expect(s.stopReasons).toEqual({ end_turn: 1, '(unfinished)': 1 });
    expect(s.updates).toEqual({ agent_message_chunk: 2, state_update: 3 });
  });

  it('latency helpers: nearest-rank percentiles, and responses paired by direction and id type', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBe(10);
    expect(percentile([], 50)).toBeUndefined();
    expect(summarizeLatencies([30, 10, 20])).toEqual({ count: 3, p50: 20, p99: 30, max: 30 });
    const p = new RequestPairer();
    const f = frames([
      [0, E2A, rpc.req(1, 'a', {})],
      [1, A2E, rpc.req(1, 'b', {})],
      [2, A2E, rpc.ok('1', {})],
      [5, A2E, rpc.ok(1, {})],
      [9, E2A, rpc.ok(1, {})],
    ]);
    const got = f.map((x) => p.push(x)).map((r) => r && [r.request.method, r.latencyMs]);
    // "1" answers nothing; the agent's answer to id 1 answers the editor's request, and the other way round
    expect(got).toEqual([undefined, undefined, undefined, ['a', 5], ['b', 8]]);
    expect(p.unanswered()).toEqual([]);
  });

  it('acp-kit stats streams a capture file: text table and --json', () => {
    const d = mkdtempSync(join(tmpdir(), 'acp-stats-'));
    dirs.push(d);
    const file = join(d, 'c.ndjson');
    writeCaptureFile(file, V1);
    const json = spawnSync(process.execPath, [BIN, 'stats', file, '--json'], { encoding: 'utf8' });
    expect(json.stderr).toBe('');
    expect(json.status).toBe(0);
    const s = JSON.parse(json.stdout.split('\n')[0]!) as {
      type: string;
      frames: number;
      turns: Array<{ timeToFirstChunkMs: number }>;
    };
    expect(s).toMatchObject({ type: 'stats', frames: 15, protocolVersion: 1 });
    expect(s.turns[0]!.timeToFirstChunkMs).toBe(50);
    const text = spawnSync(process.execPath, [BIN, 'stats', file], { encoding: 'utf8' });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^session\/prompt +e->a +2 +1 +0 +20\.0 +300\.0 +300\.0/m);
    expect(text.stdout).toMatch(/-32602 +1x +Invalid params: params\.prompt: must not be empty +\(session\/prompt\)/);
    expect(text.stdout).toMatch(/turns: 2; stop reasons: end_turn 1, \(error response\) 1/);
    const missing = spawnSync(process.execPath, [BIN, 'stats', join(d, 'nope.ndjson')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`no such capture file: ${join(d, 'nope.ndjson')}`);
  });
});

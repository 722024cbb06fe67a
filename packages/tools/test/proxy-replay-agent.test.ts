// replayAsAgent in process: id remapping both ways, mismatch recovery, recorded timing vs --fast/--speed.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { replayAsAgent, scriptFromFrames, type CaptureFrame, type FrameDirection } from '../src/proxy/index.js';
import { ValueMap } from '../src/proxy/replay/id-map.js';
import { REPLAY_MISMATCH_CODE } from '../src/proxy/replay/replay-agent.js';

type Msg = Record<string, unknown>;

/** A capture built frame by frame: [direction, message, time]. */
function capture(entries: Array<[FrameDirection, Msg | string, number?]>): CaptureFrame[] {
  return entries.map(([dir, m, t], i) => {
    const raw = typeof m === 'string' ? m : JSON.stringify({ jsonrpc: '2.0', ...m });
    const o = typeof m === 'string' ? {} : m;
    const kind =
      'method' in o
        ? 'id' in o
          ? 'request'
          : 'notification'
        : 'error' in o
          ? 'error'
          : 'id' in o
            ? 'response'
            : 'invalid';
    return {
      seq: i + 1,
      t: t ?? i,
      dir,
      raw,
      kind,
      ...('method' in o ? { method: o.method as string } : {}),
      ...('id' in o ? { id: o.id as number } : {}),
    } as CaptureFrame;
  });
}

/** A live client over in-memory pipes: send lines, await the replayed agent's next line. */
function client(frames: CaptureFrame[], opts: { fast?: boolean; speed?: number } = { fast: true }) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const got: Msg[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  output.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      got.push(line.startsWith('{') ? (JSON.parse(line) as Msg) : { line });
      waiters.splice(0).forEach((w) => w());
    }
  });
  const done = replayAsAgent({ script: scriptFromFrames(frames), input, output, log: (l) => logs.push(l), ...opts });
  let read = 0;
  return {
    logs,
    done,
    send: (m: Msg) => void input.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n'),
    end: () => input.end(),
    async next(): Promise<Msg> {
      while (got.length <= read) await new Promise<void>((r) => waiters.push(r));
      return got[read++]!;
    },
  };
}

const INIT: Array<[FrameDirection, Msg, number?]> = [
  [
    'editor->agent',
    { id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { terminal: true } } },
    0,
  ],
  ['agent->editor', { id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } }, 1],
];

describe('replayAsAgent', () => {
  it('answers under the live ids, rewrites a session id and a terminal id the live client chose, keeps the recorded rest', async () => {
    const frames = capture([
      ...INIT,
      [
        'editor->agent',
        { id: 1, method: 'session/load', params: { sessionId: 'sess_rec', cwd: '/rec', mcpServers: [] } },
      ],
      [
        'agent->editor',
        {
          method: 'session/update',
          params: {
            sessionId: 'sess_rec',
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'old' } },
          },
        },
      ],
      ['agent->editor', { id: 1, result: {} }],
      ['editor->agent', { id: 2, method: 'session/prompt', params: { sessionId: 'sess_rec', prompt: [] } }],
      [
        'agent->editor',
        { id: 0, method: 'terminal/create', params: { sessionId: 'sess_rec', command: 'ls', cwd: '/rec/sub' } },
      ],
      ['editor->agent', { id: 0, result: { terminalId: 'term_rec' } }],
      [
        'agent->editor',
        {
          method: 'session/update',
          params: {
            sessionId: 'sess_rec',
            update: {
              sessionUpdate: 'tool_call',
              toolCallId: 't1',
              title: 'ls',
              content: [{ type: 'terminal', terminalId: 'term_rec' }],
            },
          },
        },
      ],
      ['agent->editor', { id: 2, result: { stopReason: 'end_turn' } }],
    ]);
    const c = client(frames);
    c.send({ id: 'a', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { terminal: true } } });
    expect(await c.next()).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      result: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    });
    c.send({ id: 'b', method: 'session/load', params: { sessionId: 'sess_live', cwd: '/live', mcpServers: [] } });
    expect(await c.next()).toMatchObject({ method: 'session/update', params: { sessionId: 'sess_live' } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'b', result: {} });
    c.send({ id: 7, method: 'session/prompt', params: { sessionId: 'sess_live', prompt: [] } });
    // the recorded cwd maps onto the live one
    expect(await c.next()).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'terminal/create',
      params: { sessionId: 'sess_live', command: 'ls', cwd: '/live/sub' },
    });
    c.send({ id: 0, result: { terminalId: 'term_live' } });
    expect(await c.next()).toMatchObject({
      params: {
        sessionId: 'sess_live',
        update: { toolCallId: 't1', content: [{ type: 'terminal', terminalId: 'term_live' }] },
      },
    });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 7, result: { stopReason: 'end_turn' } });
    c.end();
    expect(await c.done).toMatchObject({ completed: true, divergences: [] });
  });

  it('a request that does not match is answered with the mismatch error; the expected one that follows still gets the recorded answer', async () => {
    const frames = capture([
      ...INIT,
      ['editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
      ['agent->editor', { id: 1, result: { sessionId: 's1' } }],
    ]);
    const c = client(frames);
    c.send({ id: 1, method: 'initialize', params: {} });
    expect(await c.next()).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
    c.send({ id: 2, method: 'session/list', params: {} });
    expect(await c.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: REPLAY_MISMATCH_CODE,
        message: 'replay: expected session/new at frame 3, got session/list',
        data: { expected: 'session/new', frame: 3, got: 'session/list' },
      },
    });
    c.send({ id: 3, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 3, result: { sessionId: 's1' } });
    // after the end of the recording, every request is refused (round trip instead of a sleep)
    c.send({ id: 4, method: 'session/prompt', params: {} });
    expect(await c.next()).toMatchObject({
      id: 4,
      error: { code: REPLAY_MISMATCH_CODE, message: 'replay: the recording has ended (4 frames), got session/prompt' },
    });
    c.end();
    const r = await c.done;
    expect(r.completed).toBe(true);
    expect(r.divergences.map((d) => d.seq)).toEqual([3, 4]);
    expect(c.logs).toContain('replay: expected session/new at frame 3, got session/list');
  });

  it('a recording whose client pipelined initialize and session/new answers a client that waits for each answer (before: nothing answered)', async () => {
    const frames = capture([
      ['editor->agent', { id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }],
      ['editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
      ['agent->editor', { id: 0, result: { protocolVersion: 1 } }],
      ['agent->editor', { id: 1, result: { sessionId: 's1' } }],
      ['editor->agent', { id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } }],
      [
        'agent->editor',
        {
          method: 'session/update',
          params: {
            sessionId: 's1',
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
          },
        },
      ],
      ['editor->agent', { method: 'session/cancel', params: { sessionId: 's1' } }],
      ['agent->editor', { id: 2, result: { stopReason: 'cancelled' } }],
    ]);
    const c = client(frames);
    c.send({ id: 'a', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'a', result: { protocolVersion: 1 } });
    c.send({ id: 'b', method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'b', result: { sessionId: 's1' } });
    c.send({ id: 'c', method: 'session/prompt', params: { sessionId: 's1', prompt: [] } });
    expect(await c.next()).toMatchObject({ method: 'session/update' });
    // the recorded answer came after the client's cancel: it waits for the live one
    c.send({ method: 'session/cancel', params: { sessionId: 's1' } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'c', result: { stopReason: 'cancelled' } });
    c.end();
    expect(await c.done).toMatchObject({ completed: true, divergences: [] });
  });

  it('a client that pipelines what the recorded client sent one by one gets the answers in recorded order', async () => {
    const frames = capture([
      ...INIT,
      ['editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
      ['agent->editor', { id: 1, result: { sessionId: 's1' } }],
    ]);
    const c = client(frames);
    c.send({ id: 5, method: 'initialize', params: {} });
    c.send({ id: 6, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    expect(await c.next()).toMatchObject({ id: 5, result: { protocolVersion: 1 } });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 6, result: { sessionId: 's1' } });
    c.end();
    expect(await c.done).toMatchObject({ completed: true, divergences: [] });
  });

  it('the client closing early is reported with the frame replay was at; lines that are not JSON-RPC from the recorded agent are replayed as they were', async () => {
    const frames = capture([
      ...INIT,
      ['agent->editor', 'banner: not json'],
      ['editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w' } }],
      ['agent->editor', { id: 1, result: { sessionId: 's' } }],
    ]);
    const c = client(frames);
    c.send({ id: 1, method: 'initialize', params: {} });
    expect(await c.next()).toMatchObject({ id: 1 });
    expect(await c.next()).toEqual({ line: 'banner: not json' });
    c.end();
    const r = await c.done;
    expect(r.completed).toBe(false);
    expect(r.divergences).toEqual([
      expect.objectContaining({ seq: 4, expected: 'session/new request', got: 'connection closed' }),
    ]);
  });

  it('recorded gaps are kept by default, scaled by speed, and skipped with fast', async () => {
    const gap = (ms: number) =>
      capture([
        ['editor->agent', { id: 0, method: 'initialize', params: {} }, 0],
        ['agent->editor', { id: 0, result: { protocolVersion: 2 } }, ms],
      ]);
    const timed = async (frames: CaptureFrame[], opts: { fast?: boolean; speed?: number }): Promise<number> => {
      const c = client(frames, opts);
      const t0 = performance.now();
      c.send({ id: 0, method: 'initialize', params: {} });
      await c.next();
      const elapsed = performance.now() - t0;
      c.end();
      await c.done;
      return elapsed;
    };
    expect(await timed(gap(300), {})).toBeGreaterThanOrEqual(290);
    expect(await timed(gap(600), { speed: 2 })).toBeGreaterThanOrEqual(290);
    // an hour-long recorded gap: finishing at all (within the test timeout) proves nothing waited
    expect(await timed(gap(3_600_000), { fast: true })).toBeLessThan(60_000);
    expect(await timed(gap(3_600_000), { speed: 1_000_000 })).toBeLessThan(60_000);
  });
});

describe('ValueMap', () => {
  it('learns ids and roots from a recorded/live pair and rewrites only id and path fields', () => {
    const m = new ValueMap();
    m.learn({ sessionId: 'a', cwd: '/rec', text: 'x' }, { sessionId: 'b', cwd: '/live', text: 'y' });
    expect(
      m.apply({
        sessionId: 'a',
        path: '/rec/f.txt',
        other: '/rec/f.txt',
        text: 'a',
        list: [{ sessionId: 'a' }],
        recx: { path: '/recx/f' },
      }),
    ).toEqual({
      value: {
        sessionId: 'b',
        path: '/live/f.txt',
        other: '/rec/f.txt',
        text: 'a',
        list: [{ sessionId: 'b' }],
        recx: { path: '/recx/f' },
      },
      changed: true,
    });
    expect(m.apply({ sessionId: 'c' })).toEqual({ value: { sessionId: 'c' }, changed: false });
  });
});

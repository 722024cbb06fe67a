/**
 * The inspector's latency figures come from the proxy's helpers (src/captures/latency.ts): one pairing
 * and one percentile for `acp-kit stats`, `acp-kit diff` and the page, so they always agree.
 */
import { describe, expect, it } from 'vitest';
import { CaptureModel, percentile as inspectorPercentile } from '../src/inspector/index.js';
import { captureStats, percentile as proxyPercentile } from '../src/proxy/index.js';
import { A2E, E2A, frames, rpc } from '../../../test/support/capture-builder.js';

describe('inspector latency uses the proxy latency helpers', () => {
  it('one percentile implementation', () => {
    expect(inspectorPercentile).toBe(proxyPercentile);
  });

  it('the per-method table matches acp-kit stats on the same capture (pairing across directions, reused ids, errors, unanswered)', async () => {
    const list = frames([
      [0, E2A, rpc.req(0, 'initialize', { protocolVersion: 2 })],
      [1.5, A2E, rpc.ok(0, {})],
      [2, E2A, rpc.req(1, 'session/new', { cwd: '/w' })],
      [2.25, A2E, rpc.ok(1, { sessionId: 's' })],
      // the agent asks with the same id the editor used: pairing goes by direction
      [3, A2E, rpc.req(1, 'fs/read_text_file', { sessionId: 's', path: '/a' })],
      [3.125, E2A, rpc.ok(1, { content: '' })],
      [4, A2E, rpc.req(2, 'fs/read_text_file', { sessionId: 's', path: '/b' })],
      [9, E2A, rpc.err(2, -32002, 'not found')],
      [10, A2E, rpc.req(3, 'fs/read_text_file', { sessionId: 's', path: '/c' })],
      [10.0005, E2A, rpc.ok(3, { content: '' })],
      [11, E2A, rpc.req(7, 'session/prompt', { sessionId: 's', prompt: [] })],
    ]);
    const m = new CaptureModel();
    for (const f of list) m.push(f);
    m.finish();
    const { table, spans } = m.latency();
    const stats = await captureStats(list);
    for (const row of table) {
      const s = stats.methods.find((x) => x.method === row.method && x.requests > 0)!;
      expect(s, row.method).toBeDefined();
      expect({ count: row.count, open: row.open, p50: row.p50, p99: row.p99, max: row.max }, row.method).toEqual({
        count: s.requests,
        open: s.unanswered,
        p50: s.latency?.p50,
        p99: s.latency?.p99,
        max: s.latency?.max,
      });
    }
    expect(table.find((r) => r.method === 'fs/read_text_file')).toMatchObject({
      count: 3,
      open: 0,
      p50: 0.125,
      max: 5,
    });
    expect(table.find((r) => r.method === 'session/prompt')).toMatchObject({ count: 1, open: 1, p50: undefined });
    expect(spans.find((s) => s.seq === 7)).toMatchObject({ answerSeq: 8, error: true, latency: 5 });
  });
});

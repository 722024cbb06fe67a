// Issue 25 item 3: the replay's answer index on its own: which recorded answer belongs to which
// recorded request, for the editor's requests (paired by id, pipelined and reused ids) and the
// agent's requests (handed out per method in recorded order).
import { describe, expect, it } from 'vitest';
import type { CaptureFrame } from '../src/captures/frame.js';
import { AnswerIndex } from '../src/proxy/replay/answer-index.js';
import { scriptFromFrames, type ScriptFrame } from '../src/proxy/replay/script.js';

/** A script from `[dir, message]` pairs, seq 1.. in order. */
function script(lines: Array<['e' | 'a', Record<string, unknown>]>): ScriptFrame[] {
  const frames: CaptureFrame[] = lines.map(([d, m], i) => ({
    seq: i + 1,
    t: i,
    dir: d === 'e' ? 'editor->agent' : 'agent->editor',
    raw: JSON.stringify({ jsonrpc: '2.0', ...m }),
    kind: 'invalid',
  }));
  return scriptFromFrames(frames).frames;
}

describe('AnswerIndex', () => {
  it('pairs pipelined editor requests with the agent answers of their ids, whatever the answer order', () => {
    const frames = script([
      ['e', { id: 0, method: 'initialize', params: {} }],
      ['e', { id: 1, method: 'session/new', params: {} }],
      ['a', { id: 1, result: { sessionId: 's' } }],
      ['a', { id: 0, result: { protocolVersion: 1 } }],
    ]);
    const index = new AnswerIndex(frames);
    expect(index.answerTo(1)?.seq).toBe(4);
    expect(index.answerTo(2)?.seq).toBe(3);
    expect(index.requestOf(3)).toBe(2);
    expect(index.requestOf(4)).toBe(1);
    expect(index.requestOf(1)).toBeUndefined();
  });

  it('a reused id pairs with the answer after its own request; an error answer counts as the answer', () => {
    const frames = script([
      ['e', { id: 5, method: 'session/prompt', params: {} }],
      ['a', { id: 5, error: { code: -32603, message: 'boom' } }],
      ['e', { id: 5, method: 'session/prompt', params: {} }],
      ['a', { id: 5, result: { stopReason: 'end_turn' } }],
      ['e', { id: 6, method: 'session/prompt', params: {} }],
    ]);
    const index = new AnswerIndex(frames);
    expect(index.answerTo(1)).toMatchObject({ seq: 2, kind: 'error' });
    expect(index.answerTo(3)).toMatchObject({ seq: 4, kind: 'response' });
    expect(index.answerTo(5)).toBeUndefined();
  });

  it("keeps the two directions apart: the editor answering the agent's id 0 does not answer the editor's id 0", () => {
    const frames = script([
      ['e', { id: 0, method: 'session/prompt', params: {} }],
      ['a', { id: 0, method: 'fs/read_text_file', params: { path: '/a' } }],
      ['e', { id: 0, result: { content: 'x' } }],
      ['a', { id: 0, result: { stopReason: 'end_turn' } }],
    ]);
    const index = new AnswerIndex(frames);
    expect(index.answerTo(1)?.seq).toBe(4);
    expect(index.requestOf(3)).toBeUndefined();
    expect(index.nextAgentCall('fs/read_text_file')).toMatchObject({ request: { seq: 2 }, answer: { seq: 3 } });
  });

  it("hands out the agent's requests per method in recorded order, one per call, then none", () => {
    const frames = script([
      ['a', { id: 'p1', method: 'session/request_permission', params: { options: [] } }],
      ['a', { id: 'x', method: 'ext/thing', params: {} }],
      ['e', { id: 'p1', result: { outcome: { outcome: 'cancelled' } } }],
      ['a', { id: 'p2', method: 'session/request_permission', params: { options: [] } }],
    ]);
    const index = new AnswerIndex(frames);
    expect(index.nextAgentCall('session/request_permission')).toMatchObject({
      request: { seq: 1 },
      answer: { seq: 3 },
    });
    const second = index.nextAgentCall('session/request_permission');
    expect(second?.request.seq).toBe(4);
    expect(second?.answer).toBeUndefined();
    expect(index.nextAgentCall('session/request_permission')).toBeUndefined();
    expect(index.nextAgentCall('ext/thing')?.request.seq).toBe(2);
    expect(index.nextAgentCall('fs/write_text_file')).toBeUndefined();
  });
});

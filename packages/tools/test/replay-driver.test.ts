// Issue 25 item 3: the replay's driver on its own: what it sends and when. A scripted agent in the
// test answers each frame it is sent, a step per event-loop turn; each send records what the agent
// had done by then, so the order is proven at the moment of sending, not by waiting for silence.
import { describe, expect, it } from 'vitest';
import type { CaptureFrame } from '../src/captures/frame.js';
import { AnswerIndex } from '../src/proxy/replay/answer-index.js';
import { driveReplay, LiveProgress, type DriverIo } from '../src/proxy/replay/replay-driver.js';
import { scriptFromFrames, type ScriptFrame } from '../src/proxy/replay/script.js';

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

const stateUpdate = (state: string) => ({
  method: 'session/update',
  params: { sessionId: 's', update: { sessionUpdate: 'state_update', state } },
});

// initialize, session/new, a prompt during which the agent asks a permission and reports a state,
// then the editor cancels and the prompt ends
const FRAMES = script([
  ['e', { id: 0, method: 'initialize', params: {} }],
  ['a', { id: 0, result: { protocolVersion: 2 } }],
  ['e', { id: 1, method: 'session/new', params: { cwd: '/w' } }],
  ['a', { id: 1, result: { sessionId: 's' } }],
  ['e', { id: 2, method: 'session/prompt', params: { sessionId: 's' } }],
  ['a', { id: 0, method: 'session/request_permission', params: { options: [] } }],
  ['e', { id: 0, result: { outcome: { outcome: 'cancelled' } } }],
  ['a', stateUpdate('idle')],
  ['e', { method: 'session/cancel', params: { sessionId: 's' } }],
  ['a', { id: 2, result: { stopReason: 'cancelled' } }],
]);

type Step = (p: LiveProgress) => void;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * An io whose agent plays `steps[seq]` after frame `seq` is sent, one step per event-loop turn.
 * Each send records the seq and the agent's progress at that moment.
 */
function scriptedAgent(steps: Record<number, Step[]>, timeoutMs = 10_000, gone = 'exited with code 3') {
  const progress = new LiveProgress();
  const sends: Array<{ seq: number; answered: number[]; permissions: number; idle: number }> = [];
  const io: DriverIo = {
    progress,
    timeoutMs,
    describeGone: () => Promise.resolve(gone),
    send: async (f) => {
      sends.push({
        seq: f.seq,
        answered: [...progress.answered],
        permissions: progress.permissions,
        idle: progress.states.get('idle') ?? 0,
      });
      void (async () => {
        for (const step of steps[f.seq] ?? []) {
          await nextTurn();
          step(progress);
        }
      })();
    },
  };
  return { io, progress, sends };
}

const FULL: Record<number, Step[]> = {
  1: [(p) => p.answer(1)],
  3: [(p) => p.answer(3)],
  5: [(p) => p.permission(), (p) => p.state('idle')],
  9: [(p) => p.answer(5)],
};

describe('driveReplay', () => {
  it('sends each editor frame only after the agent did what the recording shows before it, and never resends answers', async () => {
    const { io, sends, progress } = scriptedAgent(FULL);
    expect(await driveReplay(FRAMES, new AnswerIndex(FRAMES), io)).toBe(true);
    expect(progress.divergence).toBeUndefined();
    // the editor's recorded answer to the permission (frame 7) is not sent: those are given live
    expect(sends.map((s) => s.seq)).toEqual([1, 3, 5, 9]);
    expect(sends[1]).toMatchObject({ seq: 3, answered: [1] });
    // the cancel waits for both the permission request and the idle state, which come a turn apart
    expect(sends[3]).toMatchObject({ seq: 9, permissions: 1, idle: 1 });
  });

  it('a state the agent never reports: a timeout divergence before the frame that needs it, which is not sent', async () => {
    const { io, sends, progress } = scriptedAgent({ ...FULL, 5: [(p) => p.permission()] }, 200);
    expect(await driveReplay(FRAMES, new AnswerIndex(FRAMES), io)).toBe(false);
    expect(sends.map((s) => s.seq)).toEqual([1, 3, 5]);
    expect(progress.divergence).toMatchObject({ seq: 9, expected: 'state_update idle #1', got: 'timeout' });
    expect(progress.divergence?.message).toContain('before frame 9 (session/cancel notification)');
  });

  it('the last answer missing: the wait at the end names the last frame', async () => {
    const { io, progress } = scriptedAgent({ ...FULL, 9: [] }, 200);
    expect(await driveReplay(FRAMES, new AnswerIndex(FRAMES), io)).toBe(false);
    expect(progress.divergence).toMatchObject({
      seq: 10,
      expected: 'the answer to session/prompt (frame 5)',
      got: 'timeout',
    });
    expect(progress.divergence?.message).toContain('at the end of the recording');
  });

  it('the agent going away stops the wait at once with how it went, without waiting for the timeout', async () => {
    const { io, sends, progress } = scriptedAgent({ ...FULL, 3: [(p) => p.gone()] }, 60_000);
    const started = Date.now();
    expect(await driveReplay(FRAMES, new AnswerIndex(FRAMES), io)).toBe(false);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(sends.map((s) => s.seq)).toEqual([1, 3]);
    expect(progress.divergence).toMatchObject({ seq: 5, got: 'agent gone' });
    expect(progress.divergence?.message).toBe(
      'replay: the agent exited with code 3 before frame 5 (session/prompt request), still waiting for the answer to session/new (frame 3)',
    );
  });

  it('a divergence found on the agent side stops the driver before the next frame', async () => {
    const diverged: Step = (p) =>
      p.diverge(2, 'response to #0', 'error answer to #0', 'replay: the agent answered initialize with an error');
    const { io, sends, progress } = scriptedAgent({ ...FULL, 1: [diverged, (p) => p.answer(1)] });
    expect(await driveReplay(FRAMES, new AnswerIndex(FRAMES), io)).toBe(false);
    expect(sends.map((s) => s.seq)).toEqual([1]);
    expect(progress.divergence?.seq).toBe(2);
  });
});

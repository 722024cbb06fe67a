// hopLatencies (acp-kit stats on a proxy chain's trace): the k-th request of a method on one hop is paired with the
// k-th on the next, whatever the ids of each hop, and the hop's added latency is the difference of the two.
import { expect, it } from 'vitest';
import { hopLatencies, type CaptureFrame } from '../src/captures/index.js';

let seq = 0;
function frame(hop: string, t: number, kind: 'request' | 'response', id: number, method?: string): CaptureFrame {
  const dir = kind === 'request' ? 'editor->agent' : 'agent->editor';
  return { seq: ++seq, t, dir, raw: '{}', kind, id, hop, ...(method ? { method } : {}) };
}

it('pairs requests across hops by order (not id) and reports what each hop adds over the next', () => {
  const frames = [
    frame('Client-Proxy(0)', 0, 'request', 7, 'session/prompt'),
    frame('Proxy(0)-Agent', 1, 'request', 1, 'session/prompt'),
    frame('Client-Proxy(0)', 2, 'request', 8, 'session/prompt'),
    frame('Proxy(0)-Agent', 5, 'request', 2, 'session/prompt'),
    // the answers come back out of order on the agent's hop
    frame('Proxy(0)-Agent', 9, 'response', 2),
    frame('Proxy(0)-Agent', 10, 'response', 1),
    frame('Client-Proxy(0)', 10.5, 'response', 8),
    frame('Client-Proxy(0)', 12, 'response', 7),
  ];
  const r = hopLatencies(frames);
  expect(
    r.map((h) => [h.hop, h.method, h.latency.count, h.latency.max, h.added?.p50 ?? null, h.added?.max ?? null]),
  ).toEqual([
    // hop 0: 12 and 8.5 ms; the agent's hop: 9 and 4 ms; added 3 and 4.5
    ['Client-Proxy(0)', 'session/prompt', 2, 12, 3, 4.5],
    ['Proxy(0)-Agent', 'session/prompt', 2, 9, null, null],
  ]);
});

it('sorts hops in chain order (Client first, Agent last) and leaves frames of plain captures out', () => {
  const frames = [
    frame('Proxy(1)-Agent', 1, 'request', 1, 'x'),
    frame('Proxy(1)-Agent', 2, 'response', 1),
    frame('Proxy(0)-Proxy(1)', 0, 'request', 1, 'x'),
    frame('Proxy(0)-Proxy(1)', 3, 'response', 1),
    { seq: 99, t: 0, dir: 'editor->agent', raw: '{}', kind: 'request', id: 1, method: 'x' } satisfies CaptureFrame,
  ];
  expect(hopLatencies(frames).map((h) => [h.hop, h.added?.p50 ?? null])).toEqual([
    ['Proxy(0)-Proxy(1)', 2],
    ['Proxy(1)-Agent', null],
  ]);
});

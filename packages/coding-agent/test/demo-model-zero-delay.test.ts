// The demo model at delayMs 0 streams without a timer per token: setTimeout's 1 ms floor would cap
// a stream at ~1,000 tokens/s (bench/store-pg.mjs streams through `acp-kit serve` with it).
import { afterEach, expect, it, vi } from 'vitest';
import { createDemoModel, type ModelEvent, type ModelRequest } from '../src/coding-agent.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const WORDS = 300;
const request = (signal: AbortSignal): ModelRequest => ({
  system: '',
  // a request it does not understand: the reply quotes it (first 80 chars) and the help text
  messages: [
    { role: 'user', content: [{ type: 'text', text: Array.from({ length: WORDS }, (_, i) => `w${i}`).join(' ') }] },
  ],
  tools: [],
  signal,
});

it('delayMs 0: the tokens of a reply are streamed without one setTimeout each, and every token arrives', async () => {
  // a spy that calls through: the real timers run, only their number is counted
  const timers = vi.spyOn(globalThis, 'setTimeout');
  const texts: string[] = [];
  for await (const ev of createDemoModel({ delayMs: 0 }).stream(request(new AbortController().signal))) {
    if (ev.type === 'text_delta') texts.push(ev.text);
  }
  expect(texts.length).toBeGreaterThan(100);
  expect(texts.join('')).toContain('is not a request I understand');
  // at most the one pause before the reply starts
  expect(timers.mock.calls.length).toBeLessThanOrEqual(1);
});

it('delayMs 0: an abort mid-stream ends the stream with an AbortError', async () => {
  const ac = new AbortController();
  const seen: ModelEvent[] = [];
  const run = async () => {
    for await (const ev of createDemoModel({ delayMs: 0 }).stream(request(ac.signal))) {
      seen.push(ev);
      if (seen.length === 5) ac.abort();
    }
  };
  await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
  expect(seen).toHaveLength(5);
});

import { SessionState } from './session-state.js';

/**
 * Benchmark kernel: streams `count` `agent_message_chunk`s of `chunkText` into one message of a
 * fresh {@link SessionState}, reading `text` every `readEvery` chunks (0 = only at the end),
 * and returns the final text length. Cost is O(total size) (chunk lists, lazily joined text).
 */
export function benchAppendTextChunks(count: number, chunkText = 'x', readEvery = 0): number {
  const state = new SessionState('bench');
  const msg = state.message('agent', 'm') ?? (state.apply({ sessionUpdate: 'agent_message', messageId: 'm' }), state.message('agent', 'm')!);
  for (let i = 1; i <= count; i++) {
    state.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: chunkText } });
    if (readEvery > 0 && i % readEvery === 0) void msg.text;
  }
  return msg.text.length;
}

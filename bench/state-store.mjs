// Session state store: appending chunks to one message must cost O(total size).
// Prints the cost per chunk at three sizes; a flat ns/chunk column means linear total cost.
import { SessionState } from '@acp-kit/protocol';
import { CHUNK_TEXT } from './common.mjs';

/**
 * Streams `count` `agent_message_chunk`s of `chunkText` into one message of a fresh SessionState,
 * reading `text` every `readEvery` chunks, and returns the final text length.
 */
function benchAppendTextChunks(count, chunkText, readEvery) {
  const state = new SessionState('bench');
  state.apply({ sessionUpdate: 'agent_message', messageId: 'm' });
  const msg = state.message('agent', 'm');
  for (let i = 1; i <= count; i++) {
    state.apply({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: chunkText } });
    if (readEvery > 0 && i % readEvery === 0) void msg.text;
  }
  return msg.text.length;
}

export function runStateStoreBench(sizes = [250_000, 500_000, 1_000_000]) {
  benchAppendTextChunks(50_000, CHUNK_TEXT, 1000); // warm-up
  const rows = [];
  for (const n of sizes) {
    const t0 = process.hrtime.bigint();
    // a UI reading the message text every 1 000 chunks while it streams
    const len = benchAppendTextChunks(n, CHUNK_TEXT, 1000);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (len !== n * CHUNK_TEXT.length) throw new Error(`state store: text length ${len}`);
    rows.push({ chunks: n, ms, nsPerChunk: (ms * 1e6) / n });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of runStateStoreBench())
    console.log(`${r.chunks} chunks: ${r.ms.toFixed(0)} ms, ${r.nsPerChunk.toFixed(0)} ns/chunk`);
}

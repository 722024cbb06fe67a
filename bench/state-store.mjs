// Session state store: appending chunks to one message must cost O(total size).
// Prints the cost per chunk at three sizes; a flat ns/chunk column means linear total cost.
import { benchAppendTextChunks } from '../dist/protocol/state/bench.js';
import { CHUNK_TEXT } from './common.mjs';

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
  for (const r of runStateStoreBench()) console.log(`${r.chunks} chunks: ${r.ms.toFixed(0)} ms, ${r.nsPerChunk.toFixed(0)} ns/chunk`);
}

// Shared bench parameters and helpers.
export const UPDATES = Number(process.env.BENCH_UPDATES ?? 100_000);
export const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 1_000);
/** ~40 characters per chunk, as the issue specifies. */
export const CHUNK_TEXT = 'The quick brown fox jumps over the lazy.';

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function peakRssMb() {
  return process.resourceUsage().maxRSS / 1024;
}

/** Prints the client's result as the last stdout line (the orchestrator parses it). */
export function report(result) {
  process.stdout.write(JSON.stringify(result) + '\n');
}

/**
 * The measured part of an acp-kit client run: ROUND_TRIPS sequential `_bench/ping` round trips, then
 * one prompt that streams UPDATES chunks, checked to have arrived whole. `rtts` come back sorted (ms).
 */
export async function measureAcpKitClient(conn, session, label) {
  const rtts = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t = process.hrtime.bigint();
    await conn.extRequest('_bench/ping', {});
    rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const t0 = process.hrtime.bigint();
  const result = await session.prompt(String(UPDATES));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  if (result.stopReason !== 'end_turn') throw new Error(`${label}: stop reason ${result.stopReason}`);
  const agentMessages = session.state.messageList.filter((m) => m.role === 'agent');
  const text = agentMessages.map((m) => m.text).join('');
  if (text.length !== UPDATES * CHUNK_TEXT.length)
    throw new Error(`${label}: got ${text.length} chars in ${agentMessages.length} messages`);
  rtts.sort((a, b) => a - b);
  return { rtts, secs };
}

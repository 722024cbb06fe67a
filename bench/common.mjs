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

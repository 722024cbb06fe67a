// Writes test/support/test-durations.json (seconds per test file) from the result cache vitest keeps
// after a run (node_modules/.vite/vitest/*/results.json): run after a full `npm test` on an idle
// machine. The sequencer (test/support/sequencer.ts) starts the longest files first from it when a
// checkout has no results of its own (CI's fresh clone).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join('node_modules', '.vite', 'vitest');
const durations = {};
for (const hash of readdirSync(dir)) {
  const { results } = JSON.parse(readFileSync(join(dir, hash, 'results.json'), 'utf8'));
  for (const [key, r] of results) {
    const file = key.slice(key.indexOf(':') + 1);
    // files of earlier runs that are gone since are not kept
    if (typeof r.duration === 'number' && existsSync(file)) durations[file] = Math.round(r.duration / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join('test', 'support', 'test-durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/support/test-durations.json: ${Object.keys(sorted).length} files`);

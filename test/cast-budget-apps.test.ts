import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without type declarations
import { findCasts } from '../scripts/count-casts.mjs';

interface Cast {
  file: string;
  line: number;
  text: string;
}

/**
 * Issue 9.1: the checker, the CLI and the client runtime read wire JSON through `at`/`isObj` and
 * narrow by discriminated unions and type guards, not by asserting. What is left is the one
 * documented trust point of the client's event emitter (a listener stored under a generic key).
 * remote.ts and reconnect.ts are counted too: they belong to the client runtime.
 */
const BUDGET = 1;

describe('cast budget of the checker, the CLI and the client (issue 9.1)', () => {
  it(`the checker, the CLI and the client hold at most ${BUDGET} type assertion`, () => {
    const casts: Cast[] = [
      ...findCasts('packages/tools/src/checker'),
      ...findCasts('src/cli'),
      ...findCasts('packages/client/src'),
    ];
    const listing = casts.map((c) => `${c.file}:${c.line}: ${c.text}`).join('\n');
    expect(casts.length, `casts found:\n${listing}`).toBeLessThanOrEqual(BUDGET);
  });
});

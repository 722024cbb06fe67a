import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycleFor } from '../src/lifecycle/index.js';

// Issue 9 item 2: every per-version choice of the agent runtime lives in one lifecycle object per
// version, chosen at `initialize`. The runtime files themselves compare no version numbers.
const RUNTIME_DIR = new URL('../src/', import.meta.url).pathname;
const VERSION_BRANCH =
  /\b(?:version|protocolVersion)\s*[!=]==?\s*[12]\b|\b[12]\s*[!=]==?\s*[\w.!]*(?:version|protocolVersion)\b/i;

describe('agent lifecycle strategy', () => {
  it('the runtime (packages/agent/src/*.ts) has no version branches: they live in its lifecycle/', () => {
    const offenders: string[] = [];
    for (const name of readdirSync(RUNTIME_DIR)) {
      if (!name.endsWith('.ts')) continue;
      readFileSync(join(RUNTIME_DIR, name), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (VERSION_BRANCH.test(line)) offenders.push(`${name}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('lifecycleFor selects the lifecycle of each supported version and refuses others', () => {
    expect(lifecycleFor(1).version).toBe(1);
    expect(lifecycleFor(2).version).toBe(2);
    expect(() => lifecycleFor(3)).toThrow(/no agent lifecycle for protocol version 3/);
  });
});

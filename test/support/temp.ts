/**
 * Temp directories for tests that are removed after the test file, also when a test fails.
 * (The global teardown reports anything left in the run's TMPDIR.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];
// registered when a test file (transitively) imports this module, so it runs at the end of that file
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory `$TMPDIR/<prefix>XXXXXX`, removed (recursively) after the current test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

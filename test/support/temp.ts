/**
 * Temp directories for tests that are removed after the test file, also when a test fails.
 * (The global teardown reports anything left in the run's TMPDIR.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

/**
 * Removes every directory `tempDir` created so far. Called after each test file by
 * test/support/per-file.ts (a setup file): a hook registered here at import time would run after the
 * first file only in the shared, non-isolated worker, where this module is loaded once for many files.
 */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fresh directory `$TMPDIR/<prefix>XXXXXX`, removed (recursively) after the current test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // generous: without retries, CLI tests that start several processes must survive a machine shared
    // with other jobs (a hang still fails, just later)
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Builds dist/ once if stale and gives the run its own TMPDIR; its teardown reports leftover temp dirs.
    // No `retry`: a test that needs a second attempt is racy and must be fixed, not retried.
    globalSetup: ['test/support/global-setup.ts'],
  },
});

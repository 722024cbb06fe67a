import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Builds dist/ once if stale and gives the run its own TMPDIR; its teardown reports leftover temp dirs.
    // No `retry`: a test that needs a second attempt is racy and must be fixed, not retried.
    globalSetup: ['test/support/global-setup.ts'],
  },
});

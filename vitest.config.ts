import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Many tests run real agent/client processes over pipes on a 2-core CI machine; one retry
    // absorbs scheduling stalls. A deterministic bug still fails both attempts.
    retry: 1,
  },
});

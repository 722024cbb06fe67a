import { defineConfig } from 'vitest/config';

import { DurationSequencer } from './test/support/sequencer.js';
import { SHARED_WORKER_FILES } from './test/support/shared-worker-files.js';
import { sourceAliases } from './test/support/source-aliases.js';

// generous: without retries, CLI tests that start several processes must survive a machine shared
// with other jobs (a hang still fails, just later)
// `@acp-kit/*` from their src/ (as the root tsconfig's `paths` do): tests run the code under test, not a
// build of it, and a class is one class whether a test imports it by path or by package name. Per project:
// an inline project does not inherit the root config.
const resolve = { alias: sourceAliases() };
const common = { testTimeout: 90_000, hookTimeout: 90_000, setupFiles: ['test/support/per-file.ts'] };

export default defineConfig({
  test: {
    // Builds dist/ once if stale and gives the run its own TMPDIR; its teardown reports leftover temp dirs.
    // No `retry`: a test that needs a second attempt is racy and must be fixed, not retried.
    globalSetup: ['test/support/global-setup.ts'],
    // longest files first, also in a fresh clone (test/support/sequencer.ts)
    sequence: { sequencer: DurationSequencer },
    poolOptions: {
      // Vitest's default on 2 cores is ONE fork (cores - 1), which runs the suite file after file. Most
      // process files mostly wait on child processes (node start-up, pipes, timers), so several forks keep
      // both cores busy. 4 were tried: fresh-clone runs on one machine took 584 and 671 s with 4, 592 and
      // 700 s with 3 (more CPU-s with 4): within that machine's run-to-run spread, so 3 stay.
      // The forks are reused (isolate: false): a fresh fork per file cost ~0.9 s of CPU each (start-up
      // plus loading src through vite-node again), and the suite is CPU-bound. So every test file, not
      // only the unit ones, must leave no process-wide state behind (test/test-shared-worker.test.ts).
      // minForks = maxForks: with fewer, tinypool tears idle reused forks down mid-run and vitest 3.2
      // reports "Terminating worker thread" as an unhandled rejection.
      forks: { maxForks: 3, minForks: 3, isolate: false },
      // the shared worker: one thread, modules kept between files (`npm run test:unit`, the unit project
      // alone, asks for two: no forks then, and the second core would idle; each thread loads the modules)
      threads: { maxThreads: 1, minThreads: 1, isolate: false },
    },
    projects: [
      { resolve, test: { name: 'unit', include: SHARED_WORKER_FILES, pool: 'threads', ...common } },
      {
        resolve,
        test: {
          name: 'process',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: SHARED_WORKER_FILES,
          pool: 'forks',
          ...common,
        },
      },
    ],
  },
});

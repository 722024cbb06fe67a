import { defineConfig } from 'vitest/config';

/**
 * In-process test files that share one worker thread without isolation (modules, and with them the
 * compiled schema validators, are loaded once for all of them instead of once per file: the "unit"
 * project below). A file belongs here only when it runs in process (at most a few child processes of
 * its own, which the thread just waits on), changes no process-wide state
 * (process.env, cwd, signal or exit handlers, vi.mock/spy/fake timers) and cleans up in its own hooks,
 * not in hooks registered by a shared module at import time (those would run for the first file only;
 * see test/support/per-file.ts). Every other file (the default for a new one) runs isolated in its own
 * fork.
 */
export const SHARED_WORKER_FILES = [
  'test/agent-author-updates.test.ts',
  'test/agent-bad-input.test.ts',
  'test/agent-initialize.test.ts',
  'test/agent-lifecycle.test.ts',
  'test/agent-serve.test.ts',
  'test/agent-session-list-index.test.ts',
  'test/agent-sessions.test.ts',
  'test/agent-store-corrupt.test.ts',
  'test/agent-store.test.ts',
  'test/agent-versions.test.ts',
  'test/coding-engine.test.ts',
  'test/coding-providers.test.ts',
  'test/coding-sandbox.test.ts',
  'test/coding-session-title.test.ts',
  'test/conformance-catalogue.test.ts',
  'test/codec-*.test.ts',
  'test/agent-replay.test.ts',
  'test/agent-restore-order.test.ts',
  'test/coding-restore.test.ts',
  'test/e2e-stdio.test.ts',
  'test/validation-validator.test.ts',
  'test/validation-precompiled.test.ts',
  'test/validation-wire-types.test.ts',
  'test/validation-equivalence.test.ts',
  'test/validation-tap.test.ts',
  'test/rpc-framing.test.ts',
  'test/rpc-omitted-params.test.ts',
  'test/rpc-peer-edge.test.ts',
  'test/rpc-stream-close.test.ts',
  'test/services-fs.test.ts',
  'test/services-permissions.test.ts',
  'test/state-session.test.ts',
  'test/version.test.ts',
  'test/cli-units.test.ts',
  'test/cli-run-reporter.test.ts',
  'test/cli-chat-controller.test.ts',
  'test/client-auth-login.test.ts',
  'test/client-unknown-sessions.test.ts',
  'test/e2e-cancel.test.ts',
  'test/e2e-config-ext.test.ts',
  'test/e2e-lifecycle.test.ts',
  'test/e2e-session-admin.test.ts',
  'test/e2e-sessions.test.ts',
  'test/e2e-updates.test.ts',
  'test/agent-lifecycle-strategy.test.ts',
  'test/agent-shared-session.test.ts',
  'test/cast-budget.test.ts',
  'test/cast-budget-apps.test.ts',
  'test/checker-requirements.test.ts',
  'test/checker-shared-runner.test.ts',
  'test/coding-usage-meta.test.ts',
  'test/inspector-bridge-legs.test.ts',
  'test/inspector-latency-shared.test.ts',
  'test/inspector-security.test.ts',
  'test/inspector-tail-lines.test.ts',
  'test/methods-supports.test.ts',
  'test/permission-decide-once.test.ts',
  'test/proxy-malformed-frames.test.ts',
  'test/proxy-record-batching.test.ts',
  'test/remote-interop.test.ts',
  'test/remote-reconnect.test.ts',
  'test/remote-security.test.ts',
  'test/remote-shared-session.test.ts',
  'test/remote-transport.test.ts',
  'test/remote-ws-batching.test.ts',
  'test/rpc-fuzz.test.ts',
  'test/rpc-input-limits.test.ts',
  'test/rpc-no-batch.test.ts',
  'test/client-runtime.test.ts',
  'test/remote-http2.test.ts',
  'test/remote-resume-teardown.test.ts',
  'test/cli-chat-open-updates.test.ts',
  'test/agent-async-store.test.ts',
  'test/proxy-replay-agent.test.ts',
  'test/public-surface.test.ts',
  'test/fs-confinement.test.ts',
  'test/coding-mcp-session.test.ts',
  'test/services-terminals.test.ts',
  'test/chat-reconnect.test.ts',
  'test/tool-process-lifetime.test.ts',
  'test/cli-chat-markdown.test.ts',
  'test/coding-cli.test.ts',
];

// generous: without retries, CLI tests that start several processes must survive a machine shared
// with other jobs (a hang still fails, just later)
const common = { testTimeout: 90_000, hookTimeout: 90_000, setupFiles: ['test/support/per-file.ts'] };

export default defineConfig({
  test: {
    // Builds dist/ once if stale and gives the run its own TMPDIR; its teardown reports leftover temp dirs.
    // No `retry`: a test that needs a second attempt is racy and must be fixed, not retried.
    globalSetup: ['test/support/global-setup.ts'],
    poolOptions: {
      // Vitest's default on 2 cores is ONE fork (cores - 1), which runs the suite file after file. Most
      // isolated files mostly wait on child processes (node start-up, pipes, timers), so 3 forks keep
      // both cores busy; measured: 3 forks cut a process-heavy subset from 143 s to 96 s under load.
      forks: { maxForks: 3, minForks: 1 },
      // the shared worker: one thread, modules kept between files
      threads: { maxThreads: 1, minThreads: 1, isolate: false },
    },
    projects: [
      { test: { name: 'unit', include: SHARED_WORKER_FILES, pool: 'threads', ...common } },
      { test: { name: 'process', include: ['test/**/*.test.ts'], exclude: SHARED_WORKER_FILES, pool: 'forks', ...common } },
    ],
  },
});

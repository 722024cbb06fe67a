/**
 * Vitest global set-up: builds dist/ once when it is missing or older than src/ (many tests import dist/
 * or spawn bin/acp-kit.js, and a stale build would test old code), and points TMPDIR at a per-run folder so
 * the teardown can count and remove what tests and spawned processes left behind.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { distIsStale as distIsStaleAt } from '../../scripts/dist-stale.mjs';
import { stopSharedCluster } from '../../scripts/pg-cluster.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

/** True when dist/ is missing or some build input changed after the last build. */
export function distIsStale(root = ROOT): boolean {
  return distIsStaleAt(root);
}

/** Leftover entries in the run's temp folder, grouped by name prefix (`acp-kit-data-x1y2` -> `acp-kit-data`). */
export function leftovers(dir: string): Map<string, number> {
  const byPrefix = new Map<string, number>();
  if (!existsSync(dir)) return byPrefix;
  for (const name of readdirSync(dir)) {
    const prefix = name.replace(/[-_.]?[A-Za-z0-9]{6}$/, '');
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
  }
  return byPrefix;
}

export default function setup(): () => void {
  if (process.env.ACP_KIT_TEST_SKIP_BUILD !== '1' && distIsStale()) {
    const started = Date.now();
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    console.log(`[global-setup] dist/ was stale: rebuilt in ${Date.now() - started} ms`);
  }

  const parentTmp = tmpdir();
  const runTmp = mkdtempSync(join(parentTmp, 'acp-kit-test-run-'));
  const previous = process.env.TMPDIR;
  // workers are forked after global set-up and inherit this; so do the processes the tests spawn
  process.env.TMPDIR = runTmp;
  // the run's PostgreSQL cluster (test/support/postgres.ts), started by the first file that needs one;
  // its server runs as the `postgres` user when we are root, so it must be able to traverse runTmp
  const pgShared = join(runTmp, 'postgres');
  process.env.ACP_KIT_PG_SHARED = pgShared;
  chmodSync(runTmp, 0o711);
  // the run's one `npm pack` of the workspace (test/support/pack.ts sharedPack), made by the first file that needs it
  const packShared = join(runTmp, 'pack');
  process.env.ACP_KIT_PACK_SHARED = packShared;

  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env.ACP_KIT_PG_SHARED;
    delete process.env.ACP_KIT_PACK_SHARED;
    stopSharedCluster(pgShared);
    rmSync(packShared, { recursive: true, force: true });
    const left = leftovers(runTmp);
    rmSync(runTmp, { recursive: true, force: true });
    if (left.size === 0) return;
    const total = [...left.values()].reduce((a, b) => a + b, 0);
    const detail = [...left].map(([prefix, n]) => `${prefix} x${n}`).join(', ');
    const message =
      `[global-teardown] ${total} temp entries were left behind by tests (${detail}); removed them now. ` +
      'Every test must remove what it creates (afterEach/finally).';
    if (process.env.ACP_KIT_TEST_STRICT_TMP === '1') throw new Error(message);
    console.warn(`\n\x1b[33m${message}\x1b[0m\n`);
  };
}

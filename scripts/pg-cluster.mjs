/**
 * A throwaway PostgreSQL cluster for tests and the bench: `initdb` + `pg_ctl` in a temp dir, on a free
 * loopback port, trust authentication, no fsync. Shared by test/support/postgres.ts and bench/*pg*.
 *
 * The server refuses to run as root, so when this process is root the server binaries run as the
 * `postgres` user (Debian's package creates it) through `runuser`, and the cluster dir is handed to it.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The directory of the newest installed PostgreSQL server binaries (`$ACP_KIT_PG_BIN`, else
 * `/usr/lib/postgresql/<newest>/bin`), or `undefined` when none has `initdb`.
 * @returns {string | undefined}
 */
export function findPostgresBin() {
  const fromEnv = process.env.ACP_KIT_PG_BIN;
  if (fromEnv) return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin/initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

/** What to tell a person whose machine has no server binaries. */
export const MISSING_POSTGRES =
  'PostgreSQL server binaries not found (looked for initdb in $ACP_KIT_PG_BIN and /usr/lib/postgresql/*/bin): ' +
  'install them with `apt-get install postgresql` (.ci/run does this)';

/** @returns {Promise<number>} a port that was free on 127.0.0.1 a moment ago */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server binary, as `postgres` when we are root. */
function runServerBinary(bin, name, args) {
  const file = join(bin, name);
  const [command, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  try {
    return execFileSync(command, argv, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
  } catch (e) {
    const out = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim();
    throw new Error(`${name} ${args.join(' ')} failed: ${out || e.message}`, { cause: e });
  }
}

/**
 * @typedef {object} PgCluster
 * @property {string} url  `postgres://postgres@127.0.0.1:PORT/postgres`
 * @property {string} host `127.0.0.1`
 * @property {number} port
 * @property {string} dir  the cluster's temp dir (data, socket, log)
 * @property {() => void} stop stops the server (immediate) and removes the dir; safe to call twice
 */

/**
 * Starts a throwaway cluster. Removes what it created when the start fails.
 * @param {{ bin?: string, parent?: string }} [options] `parent`: where the temp dir goes (default `os.tmpdir()`)
 * @returns {Promise<PgCluster>}
 */
export async function startCluster(options = {}) {
  const bin = options.bin ?? findPostgresBin();
  if (!bin) throw new Error(MISSING_POSTGRES);
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), 'acp-kit-pg-'));
  const data = join(dir, 'data');
  try {
    if (isRoot()) {
      // the dir's parents must be traversable by postgres (test/support/global-setup.ts makes the run's TMPDIR 0711)
      const { uid, gid } = postgresIds();
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o700);
    runServerBinary(bin, 'initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await freePort();
    // unix socket in our own dir (the default /var/run/postgresql may not exist or be writable);
    // fsync off: a throwaway cluster needs no durability and the machine's disk is shared
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    runServerBinary(bin, 'pg_ctl', [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      serverOptions,
    ]);
    let stopped = false;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      host: '127.0.0.1',
      port,
      dir,
      stop() {
        if (stopped) return;
        stopped = true;
        stopClusterDir(dir, bin);
      },
    };
  } catch (e) {
    stopClusterDir(dir, bin);
    throw e;
  }
}

/**
 * Stops the server of a cluster dir made by {@link startCluster} (if it runs) and removes the dir.
 * Used by `stop()` and by a teardown that only knows the dir.
 * @param {string} dir
 * @param {string | undefined} [bin]
 */
export function stopClusterDir(dir, bin = findPostgresBin()) {
  const data = join(dir, 'data');
  if (bin && existsSync(join(data, 'postmaster.pid'))) {
    try {
      runServerBinary(bin, 'pg_ctl', ['stop', '-w', '-t', '30', '-m', 'immediate', '-D', data]);
    } catch {
      // already gone: nothing to stop
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function postgresIds() {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      "running as root, but there is no `postgres` user to run the server as (Debian's postgresql package creates it)",
    );
  }
}

/**
 * One cluster shared by every process of a test run, started by the first process that asks (so a run
 * without PostgreSQL tests pays nothing) and stopped by {@link stopSharedCluster} in the run's teardown.
 * `stateDir` is the run's coordination dir: the first caller creates `starting` exclusively and writes
 * `dir` then `url` (or `error`); the others wait for `url` or `error`.
 * @param {string} stateDir
 * @param {number} [timeoutMs]
 * @returns {Promise<string>} the cluster's url
 */
export async function sharedClusterUrl(stateDir, timeoutMs = 120_000) {
  mkdirSync(stateDir, { recursive: true, mode: 0o711 });
  const urlFile = join(stateDir, 'url');
  const errorFile = join(stateDir, 'error');
  let starter = false;
  try {
    closeSync(openSync(join(stateDir, 'starting'), 'wx'));
    starter = true;
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
  }
  if (starter) {
    try {
      const cluster = await startCluster({ parent: stateDir });
      writeAtomic(join(stateDir, 'dir'), cluster.dir);
      writeAtomic(urlFile, cluster.url);
      return cluster.url;
    } catch (e) {
      writeAtomic(errorFile, e instanceof Error ? e.message : String(e));
      throw e;
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(urlFile)) return readFileSync(urlFile, 'utf8');
    if (existsSync(errorFile))
      throw new Error(`the shared PostgreSQL cluster did not start: ${readFileSync(errorFile, 'utf8')}`);
    if (Date.now() > deadline)
      throw new Error(`the shared PostgreSQL cluster did not start within ${timeoutMs} ms (state in ${stateDir})`);
    // another process is running initdb (seconds): a file in a dir has no portable "wait until created"
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Stops the shared cluster of a run (if one was started) and removes `stateDir`.
 * @param {string} stateDir
 */
export function stopSharedCluster(stateDir) {
  const dirFile = join(stateDir, 'dir');
  if (existsSync(dirFile)) stopClusterDir(readFileSync(dirFile, 'utf8'));
  else
    for (const name of existsSync(stateDir) ? readdirSync(stateDir) : []) {
      // a starter that died between initdb and writing `dir`
      if (name.startsWith('acp-kit-pg-')) stopClusterDir(join(stateDir, name));
    }
  rmSync(stateDir, { recursive: true, force: true });
}

function writeAtomic(file, text) {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

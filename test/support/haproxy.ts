// A real HAProxy (Debian's `haproxy` package, installed by .ci/run) in front of `acp-kit serve`
// instances, configured as docs/deploy.md says: WebSocket upgrades pass through, Streamable HTTP
// connections stick to the instance that minted their `Acp-Connection-Id`, `/readyz` decides which
// instances get traffic. Under CI=true a missing haproxy fails the tests; locally they are skipped
// loudly (as for PostgreSQL: test/support/postgres.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

const BIN = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
const IN_CI = process.env.CI === 'true';

/** `describe` for tests that need HAProxy: skipped loudly when it is missing outside CI. */
export const describeHaproxy: typeof describe =
  BIN || IN_CI
    ? describe
    : (((name: string, ...rest: unknown[]) => {
        process.stderr.write(
          `\n\x1b[33m[haproxy] SKIPPED "${name}": no haproxy binary (apt-get install haproxy). Under CI=true these tests fail instead.\x1b[0m\n`,
        );
        return (describe.skip as (...a: unknown[]) => unknown)(name, ...rest);
      }) as typeof describe);

/** A free loopback port (taken and released: the instances behind HAProxy keep theirs across restarts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The configuration docs/deploy.md shows (its `haproxy` block, read here so the documented one is
 * the tested one), with this run's listen port, stats socket and loopback backends checked every
 * 200 ms instead of the documented addresses and intervals. Three failed checks mark an instance down
 * (`fall 3`): with one, a `/readyz` slower than the 200 ms check timeout on a loaded machine marked a
 * healthy instance down, and HAProxy sent an HTTP connection's next request to an instance that never
 * minted its `Acp-Connection-Id` (404 on `session/new`, seen once in CI at load ~16).
 */
export function haproxyConfig(options: { port: number; backends: number[]; socket: string }): string {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/deploy.md', import.meta.url)), 'utf8');
  const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/deploy.md has no ```haproxy block');
  const servers = options.backends.map((p, i) => `  server serve${i + 1} 127.0.0.1:${p} check inter 200 fall 3 rise 1`);
  const lines = block.split('\n').flatMap((line) => {
    if (/^\s+stats socket /.test(line)) return [`  stats socket ${options.socket} mode 600 level admin`];
    if (/^\s+bind /.test(line)) return [`  bind 127.0.0.1:${options.port}`];
    if (/^\s+server /.test(line)) return line.includes(' serve1 ') ? servers : [];
    return [line];
  });
  if (!lines.some((l) => l.includes('127.0.0.1:' + String(options.backends[0])))) throw new Error('no server lines');
  return lines.join('\n');
}

/** A running HAProxy: its URL, the backend states it sees, and stop(). */
export interface Haproxy {
  url: string;
  /** `server name -> status` (`UP`, `DOWN`, `MAINT`, …) from the stats socket. */
  status(): Promise<Record<string, string>>;
  /** Resolves once every backend has `status` (checks every 100 ms, at most `ms`). */
  waitFor(status: string, names: string[], ms?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startHaproxy(backends: number[]): Promise<Haproxy> {
  if (!BIN) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const dir = mkdtempSync(join(tmpdir(), 'acp-haproxy-'));
  const port = await freePort();
  const socket = join(dir, 'admin.sock');
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig({ port, backends, socket }));
  execFileSync(BIN, ['-c', '-q', '-f', cfg]);
  const proc: ChildProcess = spawn(BIN, ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr?.on('data', (c) => (err += c));
  const status = async (): Promise<Record<string, string>> => {
    const csv = await ask(socket, 'show stat\n');
    const out: Record<string, string> = {};
    for (const line of csv.split('\n')) {
      const f = line.split(',');
      if (f[0] === 'serve' && f[1] && f[1] !== 'BACKEND') out[f[1]] = f[17] ?? '';
    }
    return out;
  };
  const until = Date.now() + 5000;
  while (!existsSync(socket)) {
    if (proc.exitCode !== null || Date.now() > until) throw new Error(`haproxy did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}/acp`,
    status,
    async waitFor(want, names, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const s = await status();
        if (names.every((n) => s[n] === want)) return;
        if (Date.now() > deadline)
          throw new Error(`haproxy: ${names.join(', ')} not all ${want} within ${ms} ms: ${JSON.stringify(s)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command on HAProxy's stats socket; resolves with the whole answer. */
function ask(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const c = createConnection(socket, () => c.end(command));
    c.on('data', (d) => (out += d));
    c.once('error', reject);
    c.once('close', () => resolve(out));
  });
}

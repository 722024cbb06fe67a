// Real `acp-kit serve --store postgres://…` cluster instances (bin/acp-kit.js, from dist/) on one
// PostgreSQL database, and v2 clients that record what they receive: for the cluster tests about
// processes (failover after kill -9, clean SIGTERM handover). Register `useClusterServes()` in a
// describe block; its clients close after each test, its processes and directories after the file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';
import { connect, type ClientConnection } from '../../packages/client/src/index.js';

const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));

/** One running instance: its process, its WebSocket URL and what it wrote on stderr so far. */
export interface Serve {
  proc: ChildProcess;
  ws: string;
  stderr: () => string;
}

/** A v2 client and every `session/update`'s `update` it received, in wire order. */
export interface Client {
  conn: ClientConnection;
  updates: any[];
}

/** What a transcript shows: each message (by id, in order of appearance) with its kind and whole text; state updates aside. */
export function transcript(us: any[]): { messageId: string; kind: string; text: string }[] {
  const out = new Map<string, { messageId: string; kind: string; text: string }>();
  for (const u of us) {
    if (typeof u.messageId !== 'string') continue;
    const kind = String(u.sessionUpdate).replace(/_chunk$/, '');
    const blocks = Array.isArray(u.content) ? u.content : u.content ? [u.content] : [];
    const text = blocks.map((c: any) => c.text ?? '').join('');
    const m = out.get(u.messageId) ?? { messageId: u.messageId, kind, text: '' };
    m.text += text;
    out.set(u.messageId, m);
  }
  return [...out.values()];
}

export function useClusterServes(options: {
  databaseUrl: () => string;
  token: string;
  leaseMs: number;
  /** The demo model's delay per chunk (default 40 ms: a turn streams long enough to be stopped in the middle). */
  demoDelayMs?: number;
}): {
  /** A fresh directory holding the token file (instances' data dirs go below it; sessions may use it as cwd). */
  clusterDir(): string;
  /** Starts an instance in `dir`; resolves once it printed its address (its first stdout line). */
  startServe(dir: string, id: string, port?: number): Promise<Serve>;
  client(url: string): Promise<Client>;
} {
  const procs: ChildProcess[] = [];
  const dirs: string[] = [];
  const open: ClientConnection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await Promise.all(
      procs.splice(0).map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null) return resolve();
            p.once('exit', () => resolve());
            p.kill('SIGKILL');
          }),
      ),
    );
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    clusterDir() {
      const dir = mkdtempSync(join(tmpdir(), 'acp-cluster-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'token'), `${options.token}\n`);
      return dir;
    },
    startServe(dir, id, port = 0) {
      const args = [
        'serve',
        '--port',
        String(port),
        '--token-file',
        join(dir, 'token'),
        '--store',
        options.databaseUrl(),
        '--instance-id',
        id,
        '--lease-ms',
        String(options.leaseMs),
        '--model',
        'demo',
      ];
      const proc = spawn(process.execPath, [BIN, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        // a slow demo model: a turn streams long enough to be stopped or killed in the middle
        env: {
          ...process.env,
          ACP_KIT_DATA_DIR: join(dir, 'data'),
          ACP_KIT_DEMO_DELAY_MS: String(options.demoDelayMs ?? 40),
        },
      });
      procs.push(proc);
      let err = '';
      proc.stderr!.on('data', (c) => (err += c));
      return new Promise((resolve, reject) => {
        proc.once('exit', (code) => reject(new Error(`serve ${id} exited ${code}: ${err}`)));
        createInterface({ input: proc.stdout! }).once('line', (line) =>
          resolve({ proc, ...JSON.parse(line), stderr: () => err }),
        );
      });
    },
    async client(url) {
      const updates: any[] = [];
      const conn = await connect({
        url,
        token: options.token,
        protocol: 2,
        tap: {
          sent: () => undefined,
          received: (m: any) => void (m?.method === 'session/update' && updates.push(m.params.update)),
        },
      });
      open.push(conn);
      return { conn, updates };
    },
  };
}

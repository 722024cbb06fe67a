// Issue 24 item 3: half-open sockets (a slowloris attack) were all held for the 66 s header timeout,
// and near the descriptor limit every legitimate request failed with -32603 EMFILE naming server
// paths. A real `serve` started with `ulimit -n 256`; 300 raw sockets from 127.0.0.2 that send
// nothing or half a request. The ones beyond the per-address cap are answered 429 with Retry-After
// at once, the rest are closed after the pending timeout, and meanwhile a client from 127.0.0.1
// opens a session and runs a turn; serve lives.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { AcpError, OUT_OF_DESCRIPTORS } from '../../protocol/src/errors.js';
import { startServe, type ServeProcess } from '../../../test/support/serve-process.js';

const TOKEN = 'slowloris-token-0123456789abcdef';
const ATTACKERS = 300;
// the defaults at ulimit -n 256: 64 pending sockets (a quarter of it), 16 per address, 10 s to be admitted
const PER_IP = 16;
const PENDING_MS = 10_000;

const procs: ChildProcess[] = [];
const dirs: string[] = [];
const open: Socket[] = [];
const conns: ClientConnection[] = [];
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  for (const s of open) s.destroy();
  for (const p of procs) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `acp-kit serve` (built-in agent, JSONL sessions) under `ulimit -n 256`. */
function serveUnderUlimit(): Promise<ServeProcess> {
  const data = mkdtempSync(join(tmpdir(), 'acp-slowloris-'));
  dirs.push(data);
  return startServe(['--token', TOKEN, '--model', 'demo', '--verbose'], {
    procs,
    env: { ...process.env, ACP_KIT_DATA_DIR: data },
    openFilesLimit: 256,
  });
}

/** A raw socket from 127.0.0.2 that sends nothing, or half a request; records what it was answered and when it closed. */
function attacker(port: number, half: boolean): { answer: () => string; closed: Promise<number> } {
  const socket = tcpConnect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
  open.push(socket);
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (answer += d));
  socket.on('error', () => undefined);
  if (half) socket.once('connect', () => socket.write('GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
  return { answer: () => answer, closed: new Promise((r) => socket.once('close', () => r(Date.now()))) };
}

it(`${ATTACKERS} half-open sockets against serve under ulimit -n 256: 429 + Retry-After beyond the default ${PER_IP} per address, the rest closed after the pending timeout, a legitimate client runs a turn meanwhile`, async () => {
  const serve = await serveUnderUlimit();
  const port = Number(new URL(serve.url).port);
  const started = Date.now();
  const attackers = Array.from({ length: ATTACKERS }, (_, i) => attacker(port, i % 2 === 0));
  let settled = 0;
  for (const a of attackers) void a.closed.then(() => settled++);
  // all but the admitted-pending ones are answered and closed at once
  for (
    const deadline = Date.now() + 20_000;
    settled < ATTACKERS - PER_IP;
    await new Promise((r) => setTimeout(r, 20))
  ) {
    if (Date.now() > deadline)
      throw new Error(
        `only ${settled} of ${ATTACKERS} attacking sockets were refused; serve said: ${serve.stderr().slice(-500)}`,
      );
  }
  const refused = attackers.filter((a) => a.answer().startsWith('HTTP/1.1 429'));
  // (some are dropped at accept instead: the refused ones hold descriptors until their client closes)
  expect(refused.length).toBeGreaterThan(ATTACKERS / 2);
  expect(attackers.filter((a) => a.answer() !== '' && !a.answer().startsWith('HTTP/1.1 429'))).toEqual([]);
  expect(refused[0].answer()).toMatch(
    /Retry-After: 5\r\n[\s\S]*too many connections from .*127\.0\.0\.2 waiting to authenticate \(at most 16 per address\)/,
  );

  // a legitimate client from 127.0.0.1 while the rest still hang
  const conn = await connect({ url: serve.ws, token: TOKEN });
  conns.push(conn);
  const s = await conn.newSession({ cwd: dirs[0] });
  expect((await s.prompt('hello')).stopReason).toBe('end_turn');
  expect(Date.now() - started).toBeLessThan(PENDING_MS + 60_000);

  // the held ones are closed after the pending timeout, not the 66 s header timeout
  const closedAt = await Promise.all(attackers.map((a) => a.closed));
  const last = Math.max(...closedAt) - started;
  expect(last).toBeGreaterThanOrEqual(PENDING_MS - 500);
  expect(last).toBeLessThan(PENDING_MS + 15_000);
  expect(serve.proc.exitCode).toBeNull();
  const health = await fetch(serve.url.replace(/\/acp$/, '/healthz'));
  expect(health.status).toBe(200);
}, 120_000);

it('running out of descriptors is told without server paths', () => {
  const emfile = Object.assign(
    new Error("EMFILE: too many open files, open '/home/someone/.local/share/acp-kit/serve/abc/sess.jsonl'"),
    { code: 'EMFILE' },
  );
  const e = AcpError.from(emfile);
  expect(e.message).toBe(OUT_OF_DESCRIPTORS);
  expect(JSON.stringify(e.toJSON())).not.toContain('/home');
});

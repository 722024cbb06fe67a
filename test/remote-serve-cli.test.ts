// `acp-kit serve` as a real process (bin/acp-kit.js, from dist/): a stdio agent per connection,
// reached over WebSocket by acp-kit's client; SIGTERM mid-turn ends the turn `cancelled`, flushes
// it to the client, kills the agent's process group and exits 0. Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import { startServe } from './support/serve-process.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/e2e-agent.mjs', import.meta.url));
const procs: ChildProcess[] = [];
const dirs: string[] = [];
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('serve --agent: a turn over WebSocket; SIGTERM mid-turn ends it cancelled, then exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acp-serve-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'token'), 'file-token-0123456789abcdef\n');
  const serve = await startServe(
    ['--token-file', join(dir, 'token'), '--agent', `${JSON.stringify(process.execPath)} ${JSON.stringify(AGENT)}`],
    { procs },
  );
  expect(serve.stderr()).toMatch(/listening on ws:\/\/127\.0\.0\.1:\d+\/acp \(WebSocket\)/);
  expect(serve.stderr()).not.toContain('file-token-0123456789abcdef');
  const conn = await connect({ url: serve.ws, token: 'file-token-0123456789abcdef' });
  open.push(conn);
  const s = await conn.newSession({ cwd: dir });
  expect((await s.prompt('hi')).stopReason).toBe('end_turn');
  // a long turn: first chunk, then a sleep the cancel interrupts
  let started!: () => void;
  const chunk = new Promise<void>((r) => (started = r));
  const off = s.onUpdate(() => {
    if (s.state.messageList.some((m) => m.text === 'before-sleep')) started();
  });
  const turn = s.prompt(
    JSON.stringify({
      actions: [
        {
          send: {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'b',
            content: { type: 'text', text: 'before-sleep' },
          },
        },
        { sleep: 60000 },
      ],
    }),
  );
  await chunk;
  off();
  const exited = new Promise<number | null>((r) => serve.proc.once('exit', (code) => r(code)));
  serve.proc.kill('SIGTERM');
  expect((await turn).stopReason).toBe('cancelled');
  expect(await exited).toBe(0);
  expect(serve.stderr()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
}, 30_000);

it('serve refuses a non-loopback bind without a token, saying what to do', async () => {
  const proc = spawn(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withoutServeToken(),
  });
  procs.push(proc);
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  expect(code).not.toBe(0);
  expect(err).toMatch(/refusing to serve on 0\.0\.0\.0 without a token/);
  expect(err).toMatch(/--token-file/);
});

/** The environment without $ACP_KIT_SERVE_TOKEN (set but blank is an error of its own). */
function withoutServeToken(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ACP_KIT_SERVE_TOKEN;
  return env;
}

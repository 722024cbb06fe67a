// Tenants of a real `acp-kit serve` process (needs `npm run build`): tokens from a token file (one
// a line), weak or blank tokens refused at start, session roots confined to each tenant's workspace
// (never over the data folder: a tenant cannot grep another's stored sessions), files private
// (0600 in 0700 folders under umask 022), and `proxy --record` captures 0600.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BIN } from '../../../test/fixtures/cli-helpers.js';
import { tempDir } from '../../../test/support/temp.js';

const ALICE = 'alice-0123456789abcdef';
const BOB = 'bob-fedcba9876543210';
const ownerOf = (token: string): string => createHash('sha256').update(token).digest('hex').slice(0, 12);

const procs: ChildProcess[] = [];
const sockets: WebSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.terminate();
  for (const p of procs.splice(0)) if (p.exitCode === null) p.kill('SIGKILL');
});

const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;

/** `acp-kit serve --port 0 <args>` under umask 022; resolves with its ws URL once it listens. */
function serve(args: string[], env: NodeJS.ProcessEnv): Promise<{ ws: string; proc: ChildProcess }> {
  const proc = spawn(
    'bash',
    [
      '-c',
      `umask 022; exec ${[process.execPath, BIN, 'serve', '--port', '0', '--model', 'demo', ...args].map(quote).join(' ')}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  procs.push(proc);
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve({ ws: JSON.parse(line).ws, proc }));
  });
}

/** A v1 client over a WebSocket: `call` resolves with the response; `seen` holds every message received. */
async function client(ws: string, token: string, protocolVersion = 1) {
  const socket = new WebSocket(ws, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(socket);
  const seen: any[] = [];
  const waiting = new Map<number, (m: any) => void>();
  socket.on('message', (d) => {
    const m = JSON.parse(d.toString());
    seen.push(m);
    if (!('method' in m)) waiting.get(m.id)?.(m);
    // the demo agent asks before writes only; reads run freely, but answer anything asked
    else if (m.method === 'session/request_permission')
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { outcome: { outcome: 'cancelled' } } }));
  });
  await new Promise((r, j) => socket.once('open', r).once('error', j));
  let next = 1;
  const call = (method: string, params: unknown): Promise<any> =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  const init =
    protocolVersion === 1
      ? { protocolVersion, clientCapabilities: {} }
      : { protocolVersion, info: { name: 'tenants', version: '1' }, capabilities: {} };
  expect((await call('initialize', init)).result.protocolVersion).toBe(protocolVersion);
  return { call, seen };
}

/** A `serve` that must refuse to start: its exit code and stderr. */
function refusedStart(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--model', 'demo', ...args], {
    encoding: 'utf8',
    env,
    timeout: 20_000,
  });
  return { status: r.status, stderr: r.stderr };
}

it('weak tokens and a blank $ACP_KIT_SERVE_TOKEN stop the start (exit 2, naming the rule)', () => {
  const data = tempDir('acp-serve-tenants-');
  const env = { ...process.env, ACP_KIT_DATA_DIR: data };
  delete env.ACP_KIT_SERVE_TOKEN;
  const short = refusedStart(['--token', 'abc123'], env);
  expect(short.status, short.stderr).toBe(2);
  expect(short.stderr).toMatch(
    /weak token in --token: a token needs at least 16 characters, at least 8 of them different/,
  );
  // long enough but only two different characters
  const repetitive = refusedStart(['--token', 'abababababababababab'], env);
  expect(repetitive.status, repetitive.stderr).toBe(2);
  expect(repetitive.stderr).toMatch(/at least 8 of them different/);
  const file = join(data, 'tokens');
  writeFileSync(file, `# tenants\n${ALICE}\n\nshort-token\n`);
  const inFile = refusedStart(['--token-file', file], env);
  expect(inFile.status, inFile.stderr).toBe(2);
  expect(inFile.stderr).toMatch(/weak token in --token-file .* \(token 2\)/);
  const blank = refusedStart([], { ...env, ACP_KIT_SERVE_TOKEN: '   ' });
  expect(blank.status, blank.stderr).toBe(2);
  expect(blank.stderr).toMatch(/\$ACP_KIT_SERVE_TOKEN is set but blank/);
}, 60_000);

it("several tokens from a token file: sessions rooted in each tenant's workspace only, no grep into the data folder, files 0600 in 0700 folders", async () => {
  const data = tempDir('acp-serve-tenants-');
  const file = join(tempDir('acp-tokens-'), 'tokens');
  writeFileSync(file, `# one tenant a line\n${ALICE}\n\n  # Bob\n${BOB}\n`);
  const env = { ...process.env, ACP_KIT_DATA_DIR: data, ACP_KIT_DEMO_DELAY_MS: '0' };
  const { ws } = await serve(['--token-file', file], env);
  const alice = await client(ws, ALICE);
  const bob = await client(ws, BOB);
  const aliceWs = join(data, 'tenants', ownerOf(ALICE), 'workspace');
  const bobWs = join(data, 'tenants', ownerOf(BOB), 'workspace');

  // outside the workspace, the data folder, another tenant's workspace: refused naming cwd and the rule
  for (const cwd of ['/', data, join(data, 'sessions'), aliceWs, tempDir('acp-elsewhere-')]) {
    const r = await bob.call('session/new', { cwd, mcpServers: [] });
    expect(r.error, `${cwd}: ${JSON.stringify(r)}`).toMatchObject({ code: -32602, data: { path: 'params.cwd' } });
    expect(r.error.message).toMatch(
      /^Invalid params: params\.cwd: must (be inside your workspace|not contain the server's data folder|not be inside the server's data folder)/,
    );
  }

  const a = await alice.call('session/new', { cwd: aliceWs, mcpServers: [] });
  expect(a.error, JSON.stringify(a)).toBeUndefined();
  const secret = 'zebra-crossing-4471';
  expect(
    (
      await alice.call('session/prompt', {
        sessionId: a.result.sessionId,
        prompt: [{ type: 'text', text: `my secret is ${secret}` }],
      })
    ).result.stopReason,
  ).toBe('end_turn');

  const b = await bob.call('session/new', { cwd: bobWs, mcpServers: [] });
  expect(b.error, JSON.stringify(b)).toBeUndefined();
  // Bob's agent searches up out of his workspace, where Alice's history lies
  const turn = await bob.call('session/prompt', {
    sessionId: b.result.sessionId,
    prompt: [{ type: 'text', text: `search ${secret} in ../../..` }],
  });
  expect(turn.result?.stopReason, JSON.stringify(turn)).toBe('end_turn');
  const bobSaw = JSON.stringify(bob.seen);
  expect(bobSaw).toContain('search_text');
  // the sandbox refuses the path: the tool call fails, saying so
  const ended = bob.seen.filter(
    (m) =>
      m.method === 'session/update' &&
      m.params.update.sessionUpdate === 'tool_call_update' &&
      m.params.update.status !== 'in_progress',
  );
  expect(ended.map((m) => m.params.update.status)).toEqual(['failed']);
  expect(JSON.stringify(ended[0].params.update.content)).toMatch(/is outside the session roots/);
  const hits = bob.seen.filter(
    (m) => m.method === 'session/update' && JSON.stringify(m.params.update).includes('.jsonl'),
  );
  expect(hits, JSON.stringify(hits)).toEqual([]);

  // private files under umask 022
  const store = join(data, 'sessions', 'serve', ownerOf(ALICE));
  for (const dir of [store, join(data, 'serve'), join(data, 'tenants'), join(data, 'tenants', ownerOf(ALICE)), aliceWs])
    expect(statSync(dir).mode & 0o777, dir).toBe(0o700);
  const files = readdirSync(store)
    .filter((f) => !f.endsWith('.lock'))
    .map((f) => join(store, f));
  expect(files.length).toBeGreaterThan(0);
  for (const f of [...files, join(data, 'serve', 'owners.json')]) expect(statSync(f).mode & 0o777, f).toBe(0o600);
}, 90_000);

it('proxy --record writes its capture 0600 (umask 022)', () => {
  const d = tempDir('acp-capture-mode-');
  const capture = join(d, 'x.ndjson');
  // reads until its stdin ends, then has nothing left to wait on and ends with 0
  const agent = `process.stdin.on('data', () => undefined);`;
  const r = spawnSync(
    'bash',
    [
      '-c',
      `umask 022; exec ${[process.execPath, BIN, 'proxy', '--record', capture, '--', process.execPath, '-e', agent].map(quote).join(' ')}`,
    ],
    { input: '', encoding: 'utf8', timeout: 20_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  expect(statSync(capture).mode & 0o777).toBe(0o600);
});

it("v1 twins: a second v1 connection loading a session the first holds idle takes it over (the first one's requests then find none); v2 clients still share it", async () => {
  const data = tempDir('acp-serve-twins-');
  const cwd = tempDir('acp-serve-twins-cwd-');
  const env = { ...process.env, ACP_KIT_DATA_DIR: data, ACP_KIT_DEMO_DELAY_MS: '0' };
  const { ws } = await serve(['--token', ALICE], env);
  const first = await client(ws, ALICE);
  const second = await client(ws, ALICE);
  const sessionId: string = (await first.call('session/new', { cwd, mcpServers: [] })).result.sessionId;
  expect(
    (await first.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })).result.stopReason,
  ).toBe('end_turn');
  // the first may be a client whose side dropped unseen (a reconnect): the idle session moves over
  const twin = await second.call('session/load', { sessionId, cwd, mcpServers: [] });
  expect(twin.error, JSON.stringify(twin)).toBeUndefined();
  // never two writers: the first connection's prompt finds no session now, the second's runs
  expect(
    (await first.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'old' }] })).error,
  ).toMatchObject({ code: -32002 });
  expect(
    (await second.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] })).result.stopReason,
  ).toBe('end_turn');
  expect((await second.call('session/close', { sessionId })).error).toBeUndefined();

  // v2: two clients resume the same session and share it
  const a = await client(ws, ALICE, 2);
  const b = await client(ws, ALICE, 2);
  const ra = await a.call('session/resume', { sessionId, cwd, mcpServers: [] });
  const rb = await b.call('session/resume', { sessionId, cwd, mcpServers: [] });
  expect([ra.error, rb.error], JSON.stringify([ra, rb])).toEqual([undefined, undefined]);
  // and a v1 twin of a shared v2 session is refused too
  const third = await client(ws, ALICE);
  expect((await third.call('session/load', { sessionId, cwd, mcpServers: [] })).error).toMatchObject({ code: -32010 });
}, 90_000);

it('one token: any root as before; with --allowed-root, roots outside it are refused naming cwd and the rule', async () => {
  const data = tempDir('acp-serve-roots-');
  const allowed = tempDir('acp-serve-allowed-');
  const elsewhere = tempDir('acp-serve-elsewhere-');
  const env = { ...process.env, ACP_KIT_DATA_DIR: data, ACP_KIT_DEMO_DELAY_MS: '0' };
  const plain = await serve(['--token', ALICE], env);
  const before = await client(plain.ws, ALICE);
  expect((await before.call('session/new', { cwd: elsewhere, mcpServers: [] })).error).toBeUndefined();
  plain.proc.kill('SIGKILL');

  const { ws } = await serve(['--token', ALICE, '--allowed-root', allowed], env);
  const alice = await client(ws, ALICE);
  const out = await alice.call('session/new', { cwd: elsewhere, mcpServers: [] });
  expect(out.error).toMatchObject({
    code: -32602,
    data: { path: 'params.cwd' },
    message: expect.stringContaining('must be inside an allowed root (acp-kit serve --allowed-root)'),
  });
  const extra = await alice.call('session/new', { cwd: allowed, additionalDirectories: [elsewhere], mcpServers: [] });
  expect(extra.error).toMatchObject({ code: -32602, data: { path: 'params.additionalDirectories[0]' } });
  const inside = join(allowed, 'project');
  expect((await alice.call('session/new', { cwd: allowed, mcpServers: [] })).error).toBeUndefined();
  expect((await alice.call('session/new', { cwd: inside, mcpServers: [] })).error).toBeUndefined();
}, 60_000);

it("built-in agent after a restart of serve: Bob's load of Alice's session is answered as a missing one (the per-tenant store)", async () => {
  const data = tempDir('acp-serve-restart-');
  const file = join(tempDir('acp-tokens-'), 'tokens');
  writeFileSync(file, `${ALICE}\n${BOB}\n`);
  const env = { ...process.env, ACP_KIT_DATA_DIR: data, ACP_KIT_DEMO_DELAY_MS: '0' };
  const first = await serve(['--token-file', file], env);
  const alice = await client(first.ws, ALICE);
  const cwd = join(data, 'tenants', ownerOf(ALICE), 'workspace');
  const sessionId: string = (await alice.call('session/new', { cwd, mcpServers: [] })).result.sessionId;
  expect(
    (await alice.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).result.stopReason,
  ).toBe('end_turn');
  const exited = new Promise((r) => first.proc.once('exit', r));
  first.proc.kill('SIGTERM');
  await exited;
  const second = await serve(['--token-file', file], env);
  const bob = await client(second.ws, BOB);
  const bobCwd = join(data, 'tenants', ownerOf(BOB), 'workspace');
  expect(JSON.stringify((await bob.call('session/list', {})).result.sessions)).not.toContain(sessionId);
  const random = `sess_${'0123456789abcdef'.split('').reverse().join('')}${'fedcba9876543210'}`;
  const theirs = await bob.call('session/load', { sessionId, cwd: bobCwd, mcpServers: [] });
  const none = await bob.call('session/load', { sessionId: random, cwd: bobCwd, mcpServers: [] });
  expect(theirs.error).toBeDefined();
  expect(JSON.stringify(theirs.error)).toBe(JSON.stringify(none.error).split(random).join(sessionId));
}, 60_000);

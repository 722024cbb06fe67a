// The stored owners on the library server: an append-only log (a new session appends one line
// instead of rewriting every owner), a torn last line tolerated, a corrupt middle line refused with
// the file and line; and sessions with no stored owner, hidden from every token when several share
// the agent, visible to the one token otherwise.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { startAcpServer, stdioAgent, type AcpServer } from '../src/index.js';
import { httpLink, wsLink, type RawLink } from '../../../test/support/raw-links.js';
import { tempDir } from '../../../test/support/temp.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-fedcba9876543210';

const servers: AcpServer[] = [];
const links: RawLink[] = [];
afterEach(async () => {
  await Promise.all(links.splice(0).map((l) => l.close()));
  await Promise.all(servers.splice(0).map((s) => s.close(1000)));
});

async function serve(
  data: string,
  ownersFile: string,
  tokens: string[],
  log?: (line: string) => void,
): Promise<AcpServer> {
  const env = { ...process.env, ACP_KIT_DATA_DIR: data, ACP_KIT_DEMO_DELAY_MS: '0' };
  const s = await startAcpServer({
    tokens,
    agent: stdioAgent(process.execPath, [BIN, 'agent', '--model', 'demo'], { env }),
    ownersFile,
    ...(log ? { log } : {}),
  });
  servers.push(s);
  return s;
}

let nextId = 1;
async function call(link: RawLink, method: string, params: unknown, id = nextId++): Promise<string> {
  await link.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return link.response(30_000);
}

const INIT = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

async function client(
  server: AcpServer,
  token: string,
  transport: 'websocket' | 'http' = 'websocket',
): Promise<RawLink> {
  let link: RawLink;
  if (transport === 'http') {
    link = await httpLink(server.url, token, INIT(nextId++));
  } else {
    link = await wsLink(server.url.replace(/^http/, 'ws'), token);
    await link.send(INIT(nextId++));
  }
  links.push(link);
  const init = JSON.parse(await link.response(30_000));
  expect(init.result?.protocolVersion, JSON.stringify(init)).toBe(1);
  return link;
}

/** An owners file as a server before the log wrote it: one JSON object with `n` owners. */
function oldOwnersFile(file: string, n: number): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const owners: Record<string, string> = {};
  for (let i = 0; i < n; i++) owners[`sess_${i.toString(16).padStart(32, '0')}`] = 'someone';
  writeFileSync(file, JSON.stringify({ acpKitOwners: 1, owners }), { mode: 0o600 });
}

it('a new session appends one line to the owners log: the file is neither rewritten nor replaced', async () => {
  const data = tempDir('acp-owners-');
  const ownersFile = join(data, 'serve', 'owners.json');
  oldOwnersFile(ownersFile, 2000);
  const server = await serve(data, ownersFile, [ALICE, BOB]);
  const before = statSync(ownersFile);
  const alice = await client(server, ALICE);
  const cwd = tempDir('acp-owners-cwd-');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(JSON.parse(await call(alice, 'session/new', { cwd, mcpServers: [] })).result.sessionId);
  const after = statSync(ownersFile);
  // the same file (no rename of a rewritten copy), grown by one short line per session
  expect(after.ino).toBe(before.ino);
  const added = readFileSync(ownersFile, 'utf8').slice(before.size);
  expect(
    added
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).add),
  ).toEqual(ids);
  expect(after.size - before.size).toBeLessThan(3 * 200);
  expect(after.mode & 0o777).toBe(0o600);
  expect(statSync(join(data, 'serve')).mode & 0o777).toBe(0o700);
}, 120_000);

it('a torn last line is ignored with a warning; the owners before it still hold after the restart', async () => {
  const data = tempDir('acp-owners-');
  const ownersFile = join(data, 'serve', 'owners.json');
  const cwd = tempDir('acp-owners-cwd-');
  const first = await serve(data, ownersFile, [ALICE, BOB]);
  const alice = await client(first, ALICE);
  const sessionId: string = JSON.parse(await call(alice, 'session/new', { cwd, mcpServers: [] })).result.sessionId;
  await first.close(1000);
  // a crash in the middle of an append
  appendFileSync(ownersFile, '{"add":"sess_torn","own');
  const warnings: string[] = [];
  const second = await serve(data, ownersFile, [ALICE, BOB], (l) => warnings.push(l));
  expect(warnings.join('\n')).toContain(`${ownersFile}: ignoring a torn last line`);
  const bob = await client(second, BOB);
  const listed = JSON.parse(await call(bob, 'session/list', {}));
  expect(JSON.stringify(listed.result.sessions)).not.toContain(sessionId);
  const alice2 = await client(second, ALICE);
  expect(JSON.stringify(JSON.parse(await call(alice2, 'session/list', {})).result.sessions)).toContain(sessionId);
  // compacted on start: the torn bytes are gone
  expect(readFileSync(ownersFile, 'utf8')).not.toContain('sess_torn');
}, 120_000);

it('a corrupt line in the middle stops the start with an error naming the file and the line', async () => {
  const data = tempDir('acp-owners-');
  const ownersFile = join(data, 'serve', 'owners.json');
  mkdirSync(join(data, 'serve'), { recursive: true, mode: 0o700 });
  writeFileSync(
    ownersFile,
    '{"acpKitOwners":1,"owners":{}}\n{"add":"sess_a","owner":"x"}\nnot json\n{"add":"sess_b","owner":"y"}\n',
    { mode: 0o600 },
  );
  await expect(serve(data, ownersFile, [ALICE, BOB])).rejects.toThrow(
    `${ownersFile}:3: not an acp-kit owners file line`,
  );
});

/** A session created by the agent with an owners file the next server does not get: it has no stored owner. */
async function unownedSession(data: string, cwd: string): Promise<string> {
  const first = await serve(data, join(data, 'first-owners.json'), [ALICE]);
  const link = await client(first, ALICE);
  const sessionId: string = JSON.parse(await call(link, 'session/new', { cwd, mcpServers: [] })).result.sessionId;
  const prompted = JSON.parse(
    await call(link, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'nobody owns this plan' }] }),
  );
  expect(prompted.result?.stopReason, JSON.stringify(prompted)).toBe('end_turn');
  await first.close(1000);
  return sessionId;
}

for (const transport of ['websocket', 'http'] as const) {
  it(`with several tokens a session with no stored owner is, for every token, a session that does not exist (${transport})`, async () => {
    const data = tempDir('acp-owners-');
    const cwd = tempDir('acp-owners-cwd-');
    const sessionId = await unownedSession(data, cwd);
    const server = await serve(data, join(data, 'serve', 'owners.json'), [ALICE, BOB]);
    for (const token of [ALICE, BOB]) {
      const link = await client(server, token, transport);
      const listed = JSON.parse(await call(link, 'session/list', {}));
      expect(listed.result, JSON.stringify(listed)).toBeDefined();
      expect(JSON.stringify(listed.result.sessions)).not.toContain(sessionId);
      const random = `sess_${randomBytes(16).toString('hex')}`;
      for (const method of ['session/load', 'session/resume', 'session/prompt']) {
        const params = (id: string) =>
          method === 'session/prompt'
            ? { sessionId: id, prompt: [{ type: 'text', text: 'hi' }] }
            : { sessionId: id, cwd, mcpServers: [] };
        const id = nextId++;
        const theirs = await call(link, method, params(sessionId), id);
        const none = await call(link, method, params(random), id);
        expect(theirs, `${method} of the unowned session`).toBe(none.split(random).join(sessionId));
        expect(theirs).not.toContain('nobody owns this plan');
        // a JSON-RPC answer from the agent, not a transport refusal that would make both sides equal for nothing
        expect(JSON.parse(none).jsonrpc, none).toBe('2.0');
      }
    }
  }, 120_000);
}

it("with one token a session with no stored owner stays that token's to list and load", async () => {
  const data = tempDir('acp-owners-');
  const cwd = tempDir('acp-owners-cwd-');
  const sessionId = await unownedSession(data, cwd);
  const server = await serve(data, join(data, 'serve', 'owners.json'), [ALICE]);
  const link = await client(server, ALICE);
  expect(JSON.stringify(JSON.parse(await call(link, 'session/list', {})).result.sessions)).toContain(sessionId);
  const loaded = JSON.parse(await call(link, 'session/load', { sessionId, cwd, mcpServers: [] }));
  expect(loaded.error, JSON.stringify(loaded)).toBeUndefined();
}, 120_000);

it('the log is compacted once it holds more than 4x the live entries: churn does not grow the file without bound', async () => {
  const { SessionRegistry } = await import('../src/guard.js');
  const data = tempDir('acp-owners-');
  const ownersFile = join(data, 'serve', 'owners.json');
  const registry = new SessionRegistry(1e9, ownersFile, true);
  registry.add('alice', 'sess_kept');
  // 2,000 sessions opened and deleted: 4,000 lines without compaction
  for (let i = 0; i < 2000; i++) {
    registry.add('bob', `sess_${i}`);
    registry.forget('bob', `sess_${i}`);
  }
  const lines = readFileSync(ownersFile, 'utf8').split('\n').filter(Boolean);
  expect(lines.length).toBeLessThanOrEqual(4 * 256 + 1);
  // what the file says is what the registry holds: a fresh one reads the same owners
  const again = new SessionRegistry(1e9, ownersFile, true);
  expect(again.visible('alice', 'sess_kept')).toBe(true);
  expect(again.visible('bob', 'sess_kept')).toBe(false);
  expect(again.visible('bob', 'sess_1999')).toBe(false);
  expect(statSync(ownersFile).mode & 0o777).toBe(0o600);
});

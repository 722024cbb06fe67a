// Tenants on the library server: a stdio agent with its own store (the built-in agent over stdio,
// one process per connection, one data dir) served to two tokens. Ownership is stored, so after a
// restart of the server Bob still cannot reach Alice's session, and his every attempt is answered
// byte for byte as for a session that does not exist. /healthz tells a stranger nothing.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
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

function serve(data: string, ownersFile: string): Promise<AcpServer> {
  const env = { ...process.env, ACP_KIT_DATA_DIR: data, ACP_KIT_DEMO_DELAY_MS: '0' };
  return startAcpServer({
    tokens: [ALICE, BOB],
    agent: stdioAgent(process.execPath, [BIN, 'agent', '--model', 'demo'], { env }),
    ownersFile,
  }).then((s) => {
    servers.push(s);
    return s;
  });
}

let nextId = 1;
/** Sends a request and returns the text of its answer as it came off the wire. */
async function call(link: RawLink, method: string, params: unknown, id = nextId++): Promise<string> {
  await link.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return link.response(30_000);
}

type Profile = 'websocket' | 'http';

async function client(server: AcpServer, token: string, cwd: string, profile: Profile = 'websocket'): Promise<RawLink> {
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
  let link: RawLink;
  if (profile === 'http') {
    link = await httpLink(server.url, token, init);
  } else {
    link = await wsLink(server.url.replace(/^http/, 'ws'), token);
    await link.send(init);
  }
  links.push(link);
  const answer = JSON.parse(await link.response(30_000));
  expect(answer.result?.protocolVersion, JSON.stringify(answer)).toBe(1);
  void cwd;
  return link;
}

for (const profile of ['websocket', 'http'] as const) {
  it(`after a restart Bob can neither list, load, resume, prompt, close, delete, fork, retitle, archive nor ask the status of Alice's session; each answer equals a missing session's (${profile})`, async () => {
    const data = tempDir('acp-tenants-');
    const cwd = tempDir('acp-tenants-cwd-');
    const ownersFile = join(data, 'serve', 'owners.json');
    const first = await serve(data, ownersFile);
    const alice = await client(first, ALICE, cwd);
    const created = JSON.parse(await call(alice, 'session/new', { cwd, mcpServers: [] }));
    const sessionId: string = created.result.sessionId;
    const prompted = JSON.parse(
      await call(alice, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'alice secret plan' }] }),
    );
    expect(prompted.result?.stopReason, JSON.stringify(prompted)).toBe('end_turn');
    await alice.close();
    links.length = 0;
    await first.close(1000);

    // the owners file: 0600 in a 0700 folder
    expect(statSync(ownersFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, 'serve')).mode & 0o777).toBe(0o700);

    const second = await serve(data, ownersFile);
    const bob = await client(second, BOB, cwd, profile);
    const listed = JSON.parse(await call(bob, 'session/list', {}));
    expect(listed.result, JSON.stringify(listed)).toBeDefined();
    expect(JSON.stringify(listed.result.sessions)).not.toContain(sessionId);

    await expectSameAsMissing(bob, sessionId, cwd);

    // Alice's session is still there and hers: the refusals were not about a lost session
    const alice2 = await client(second, ALICE, cwd, profile);
    const aliceList = JSON.parse(await call(alice2, 'session/list', {}));
    expect(JSON.stringify(aliceList.result.sessions)).toContain(sessionId);
    const loaded = JSON.parse(await call(alice2, 'session/load', { sessionId, cwd, mcpServers: [] }));
    expect(loaded.result, JSON.stringify(loaded)).toBeDefined();
    // her delete takes it out of the stored owners (a "remove" line, and gone from the file once
    // the next start compacts the log: the file does not grow with deleted sessions)
    expect(readFileSync(ownersFile, 'utf8')).toContain(sessionId);
    const deleted = JSON.parse(await call(alice2, 'session/delete', { sessionId }));
    expect(deleted.result, JSON.stringify(deleted)).toBeDefined();
    expect(readFileSync(ownersFile, 'utf8')).toContain(`{"remove":${JSON.stringify(sessionId)}}`);
    await second.close(1000);
    await serve(data, ownersFile);
    expect(readFileSync(ownersFile, 'utf8')).not.toContain(sessionId);
  }, 120_000);
}

/** Bob's load, resume, prompt, fork, status, set_title, archive, unarchive, close and delete of `sessionId`: each answered as for a random id of its shape. */
async function expectSameAsMissing(bob: RawLink, sessionId: string, cwd: string): Promise<void> {
  // a random id of the same shape as Alice's (`sess_` + 32 hex digits)
  const random = `sess_${randomBytes(16).toString('hex')}`;
  const attempts: Array<[string, (id: string) => unknown]> = [
    ['session/load', (id) => ({ sessionId: id, cwd, mcpServers: [] })],
    ['session/resume', (id) => ({ sessionId: id, cwd, mcpServers: [] })],
    ['session/prompt', (id) => ({ sessionId: id, prompt: [{ type: 'text', text: 'bob was here' }] })],
    ['session/fork', (id) => ({ sessionId: id, cwd, mcpServers: [] })],
    // the unstable session methods (the built-in agent serves them)
    ['session/status', (id) => ({ sessionId: id })],
    ['session/set_title', (id) => ({ sessionId: id, title: 'bob was here' })],
    ['session/archive', (id) => ({ sessionId: id })],
    ['session/unarchive', (id) => ({ sessionId: id })],
    ['session/close', (id) => ({ sessionId: id })],
    ['session/delete', (id) => ({ sessionId: id })],
  ];
  for (const [method, params] of attempts) {
    // the same request id for both, so the answers can be compared byte for byte
    const id = nextId++;
    const theirs = await call(bob, method, params(sessionId), id);
    const none = await call(bob, method, params(random), id);
    expect(theirs, `${method} of Alice's session`).toBe(none.split(random).join(sessionId));
    expect(theirs, `${method}: ${theirs}`).not.toContain('alice secret plan');
    expect(JSON.parse(none).jsonrpc, none).toBe('2.0');
  }
  // a request id beyond 2^53 comes back exact: the disguised answer's id is not re-parsed as JSON
  await bob.send(
    `{"jsonrpc":"2.0","id":9007199254740993,"method":"session/close","params":{"sessionId":${JSON.stringify(sessionId)}}}`,
  );
  const big = await bob.response(30_000);
  expect(big).toMatch(/"id":9007199254740993[,}]/);
}

for (const profile of ['websocket', 'http'] as const) {
  it(`without a restart too: Bob addressing Alice's open session gets a missing session's answer, byte for byte (${profile})`, async () => {
    const data = tempDir('acp-tenants-');
    const cwd = tempDir('acp-tenants-cwd-');
    const server = await serve(data, join(data, 'owners.json'));
    const alice = await client(server, ALICE, cwd);
    const sessionId: string = JSON.parse(await call(alice, 'session/new', { cwd, mcpServers: [] })).result.sessionId;
    const bob = await client(server, BOB, cwd, profile);
    await expectSameAsMissing(bob, sessionId, cwd);
  }, 120_000);
}

it('/healthz answers a stranger {"ok":true} and nothing else', async () => {
  const data = tempDir('acp-tenants-');
  const server = await serve(data, join(data, 'owners.json'));
  const r = await fetch(server.url.replace(/\/acp$/, '/healthz'));
  expect(r.status).toBe(200);
  expect(await r.text()).toBe('{"ok":true}\n');
});

// Issue 24 item 1: one request id beyond 2^53 killed `serve` (a BigInt in JSON.stringify in the
// session guard), HTTP rounded it (…993 -> …992) and `proxy --bridge --record --validate` exited 1 on
// it. Every id shape goes through every transport and mode as raw text, against real processes: the
// answer carries the id exactly (a number digit for digit as sent, a string as the same string, null
// as null), or it is -32600 with id null for ids JSON-RPC does not allow (objects, arrays,
// booleans); the process is alive afterwards (and `serve` still answers /healthz).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIdTokens } from '../../protocol/src/rpc/json-guard.js';
import { RawChild, fixture } from '../../../test/support/raw-child.js';
import { httpLink, stdioLink, wsLink, type RawLink } from '../../../test/support/raw-links.js';
import { roundTrips } from '../../../test/support/request-ids.js';
import { startServe, type ServeProcess } from '../../../test/support/serve-process.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const TOKEN = 'request-ids-token-0123456789abcdef';
const INIT_V2 =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"ids","version":"1"},"capabilities":{}}}';
const INIT_V1 = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}';

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const children: RawChild[] = [];
afterAll(() => {
  for (const c of children) c.kill();
  for (const p of procs) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'acp-ids-'));
  dirs.push(d);
  return d;
};

/** A link whose first answer (initialize's) is consumed. */
async function initialized(link: RawLink, init = INIT_V2): Promise<RawLink> {
  await link.send(init);
  const answer = JSON.parse(await link.response());
  expect(answer.result, JSON.stringify(answer)).toBeDefined();
  return link;
}

/** `acp-kit serve` with a data dir of its own. */
const serveWith = (args: string[]): Promise<ServeProcess> =>
  startServe(['--token', TOKEN, ...args], { procs, env: { ...process.env, ACP_KIT_DATA_DIR: tmp() } });

describe('serve (real process, built-in agent)', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await serveWith([]);
  }, 60_000);

  it("the issue's frame: session/list with id 9007199254740993 over WebSocket is answered with that id and serve lives", async () => {
    const link = await initialized(await wsLink(serve.ws, TOKEN));
    await link.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"session/list","params":{}}');
    expect(rawIdTokens(await link.response())[0]).toBe('9007199254740993');
    await link.close();
    expect(serve.proc.exitCode).toBeNull();
  }, 60_000);

  it('every id shape over WebSocket', async () => {
    const link = await initialized(await wsLink(serve.ws, TOKEN));
    await roundTrips(link, 80);
    await link.close();
  }, 120_000);

  it('every id shape over Streamable HTTP (initialize with a big id too)', async () => {
    const link = await httpLink(serve.url, TOKEN, INIT_V2.replace('"id":0', '"id":9007199254740995'));
    expect(rawIdTokens(await link.response())[0]).toBe('9007199254740995');
    await roundTrips(link, 60);
    await link.close();
  }, 120_000);

  afterAll(async () => {
    const health = await fetch(serve.url.replace(/\/acp$/, '/healthz'));
    expect(health.status).toBe(200);
    expect(serve.proc.exitCode, serve.stderr()).toBeNull();
  });
});

it('serve --agent (a stdio agent relayed per connection): every id shape over WebSocket', async () => {
  const serve = await serveWith([
    '--agent',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(fixture('e2e-agent.mjs'))}`,
  ]);
  const link = await initialized(await wsLink(serve.ws, TOKEN));
  await roundTrips(link, 60);
  await link.close();
  expect(serve.proc.exitCode, serve.stderr()).toBeNull();
}, 120_000);

it('stdio: every id shape to an acp-kit agent process', async () => {
  const child = new RawChild(fixture('e2e-agent.mjs'));
  children.push(child);
  const link = await initialized(stdioLink(child));
  await roundTrips(link, 80);
  expect(child.alive, child.stderr).toBe(true);
}, 120_000);

describe('proxy --bridge --record --validate (real process)', () => {
  for (const [mode, bridge, init, agent] of [
    ['forwarding (both v2)', 'auto', INIT_V2, [fixture('e2e-agent.mjs')]],
    ['translating (v1 editor, v2 agent)', '1', INIT_V1, [BIN, 'agent', '--model', 'demo']],
  ] as const) {
    it(`${mode}: every id shape; the capture records each id as sent`, async () => {
      const d = tmp();
      const cap = join(d, 'cap.ndjson');
      const child = new RawChild(BIN, [
        'proxy',
        '--bridge',
        bridge,
        '--record',
        cap,
        '--validate',
        '--log',
        join(d, 'log'),
        '--',
        process.execPath,
        ...agent,
      ]);
      children.push(child);
      const link = await initialized(stdioLink(child), init);
      await link.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"session/list","params":{}}');
      expect(rawIdTokens(await link.response())[0]).toBe('9007199254740993');
      await roundTrips(link, 40);
      expect(child.alive, child.stderr).toBe(true);
      expect(readFileSync(cap, 'utf8')).toContain('9007199254740993');
    }, 180_000);
  }
});

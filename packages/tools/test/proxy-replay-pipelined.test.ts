// Issue 23 item 12, real processes: the official SDK client (@agentclientprotocol/sdk, v1 API)
// pipelines `initialize` and `session/new` (both written before either answer) through
// `acp-kit proxy --record` in front of the built-in agent, then prompts. That capture is replayed
// with `acp-kit replay --as agent` to the same SDK client driven the common way (each request
// after the previous answer): every request must be answered, initialize first, and a request the
// recording does not have is refused naming the recorded frame replay expected. The capture's
// `captures export --format json` is read back by every command that reads captures.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { readCapture } from '../src/proxy/index.js';
import { BIN, cliEnv, tempDir } from '../../../test/fixtures/cli-helpers.js';
import { useCli } from '../../../test/support/cli.js';

const node = process.execPath;
const PROMPT = 'create notes.txt containing hello';
const cli = useCli();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** The official SDK client connected to `acp-kit args` over real pipes. */
function sdkClient(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(node, [BIN, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const kinds: string[] = [];
  let asked = 0;
  const app = acp
    .client({ name: 'sdk-replay-client' })
    .onNotification(
      'session/update',
      ({ params }) => void kinds.push((params.update as { sessionUpdate: string }).sessionUpdate),
    )
    .onRequest('session/request_permission', ({ params }) => {
      asked++;
      const allow = params.options.find((o) => o.kind === 'allow_once');
      return allow
        ? { outcome: { outcome: 'selected', optionId: allow.optionId } }
        : { outcome: { outcome: 'cancelled' } };
    });
  const conn = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { conn, child, kinds, asked: () => asked, stderr: () => stderr, exited };
}

/** `p`, or a rejection naming what was not answered when the process `c` says nothing for `ms`. */
function answered<T>(p: Promise<T>, what: string, c: { stderr: () => string }, ms = 20_000): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (t = setTimeout(() => reject(new Error(`${what} not answered within ${ms} ms; replay said: ${c.stderr()}`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(t));
}

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  clientInfo: { name: 'sdk', version: '1' },
};

async function recordPipelined(
  dir: string,
): Promise<{ capture: string; ws: string; env: NodeJS.ProcessEnv; kinds: string[] }> {
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  const capture = join(dir, 'pipelined.ndjson');
  const env = cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') });
  const c = sdkClient(['proxy', '--record', capture, '--', node, BIN, 'agent', '--model', 'demo'], env, ws);
  // both requests are written before either answer: the SDK does not wait
  const [init, session] = await Promise.all([
    c.conn.agent.request('initialize', INIT),
    c.conn.agent.request('session/new', { cwd: ws, mcpServers: [] }),
  ]);
  expect(init.protocolVersion).toBe(1);
  const r = await c.conn.agent.request('session/prompt', {
    sessionId: session.sessionId,
    prompt: [{ type: 'text', text: PROMPT }],
  });
  expect(r.stopReason).toBe('end_turn');
  c.child.stdin.end();
  await c.exited;
  return { capture, ws, env, kinds: c.kinds };
}

let recording: ReturnType<typeof recordPipelined> | undefined;
/** One pipelined recording for the file (the tests only read it). */
const pipelined = (): ReturnType<typeof recordPipelined> =>
  (recording ??= recordPipelined(tempDir('replay-pipelined')));

describe('replay --as agent of a recording whose client pipelined its requests', () => {
  it('a client that waits for each answer gets every one (initialize first), the turn as recorded, exit 0; an unknown request names the expected frame', async () => {
    const rec = await pipelined();
    const { frames } = await readCapture(rec.capture);
    // the recording really is pipelined: session/new was sent before initialize was answered
    const order = frames.map((f) => `${f.dir === 'editor->agent' ? '>' : '<'}${f.method ?? f.kind}`);
    expect(order.indexOf('>session/new')).toBeLessThan(order.indexOf('<response'));

    const c = sdkClient(['replay', rec.capture, '--as', 'agent', '--fast'], rec.env, rec.ws);
    const init = await answered(c.conn.agent.request('initialize', INIT), 'initialize', c);
    expect(init.protocolVersion).toBe(1);
    const session = await answered(
      c.conn.agent.request('session/new', { cwd: rec.ws, mcpServers: [] }),
      'session/new',
      c,
    );
    // a request the recording does not have: refused with the frame replay expects instead
    const prompt = frames.find((f) => f.dir === 'editor->agent' && f.method === 'session/prompt');
    await expect(answered(c.conn.agent.request('session/list', {}), 'session/list', c)).rejects.toMatchObject({
      message: expect.stringContaining(`expected session/prompt at frame ${prompt?.seq}, got session/list`),
    });
    const r = await answered(
      c.conn.agent.request('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: PROMPT }],
      }),
      'session/prompt',
      c,
    );
    expect(r.stopReason).toBe('end_turn');
    expect(c.asked()).toBe(1);
    expect(c.kinds).toEqual(rec.kinds);
    c.child.stdin.end();
    expect(await c.exited).toBe(1); // the refused request is a divergence
    expect(c.stderr()).toContain(`expected session/prompt at frame ${prompt?.seq}, got session/list`);
    expect(c.stderr()).toContain('all ');
  }, 120_000);
});

describe('captures export --format json is read back by every command that reads captures', () => {
  it('validate, stats, captures show, diff and replay --as agent read the export as they read the recording', async () => {
    const rec = await pipelined();
    const exported = await cli(['captures', 'export', '--format', 'json', rec.capture], { env: rec.env });
    expect(exported.code, exported.stderr).toBe(0);
    const json = join(tempDir('replay-export'), 'export.json');
    writeFileSync(json, exported.stdout);
    const { frames } = await readCapture(rec.capture);
    for (const args of [['validate'], ['stats'], ['captures', 'show']]) {
      const [a, b] = await Promise.all([
        cli([...args, rec.capture], { env: rec.env }),
        cli([...args, json], { env: rec.env }),
      ]);
      expect({ args, code: b.code, stderr: b.stderr }).toEqual({ args, code: 0, stderr: '' });
      // the same report, but for the file name it gives
      expect(b.stdout.replaceAll(json, 'CAPTURE'), args.join(' ')).toBe(a.stdout.replaceAll(rec.capture, 'CAPTURE'));
    }
    const validated = await cli(['validate', json], { env: rec.env });
    expect(validated.stdout).toContain(`${frames.length} frames, protocol v1: no violations`);
    const diff = await cli(['diff', rec.capture, json], { env: rec.env });
    expect(diff.code, diff.stdout + diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/no differences/);

    // the reader over every key order and whitespace of that real export (raw frames are strings: untouched)
    const doc: unknown = JSON.parse(exported.stdout);
    const base = await readCapture(json);
    expect(base.frames).toEqual(frames);
    const shuffle = (v: unknown, seed: number): unknown => {
      if (Array.isArray(v)) return v.map((x, i) => shuffle(x, seed + i));
      if (typeof v !== 'object' || v === null) return v;
      const entries = Object.entries(v);
      // a seeded rotation and reversal: every position of every key over the runs
      const k = entries.length > 0 ? seed % entries.length : 0;
      const turned = [...entries.slice(k), ...entries.slice(0, k)];
      return Object.fromEntries(
        (seed & 1 ? turned.reverse() : turned).map(([key, x]) => [key, shuffle(x, seed * 31 + 7)]),
      );
    };
    const variant = join(tempDir('replay-export-keys'), 'variant.json');
    await fc.assert(
      fc.asyncProperty(
        fc.nat(1_000_000),
        fc.constantFrom(0, 1, 2, '\t', ' \t'),
        fc.constantFrom('', '\n', '\r\n', '  \n\n'),
        async (seed, indent, around) => {
          writeFileSync(variant, `${around}${JSON.stringify(shuffle(doc, seed), null, indent)}${around}`);
          const again = await readCapture(variant);
          expect(again).toEqual(base);
        },
      ),
      { numRuns: 30 },
    );

    const c = sdkClient(['replay', json, '--as', 'agent', '--fast'], rec.env, rec.ws);
    expect((await answered(c.conn.agent.request('initialize', INIT), 'initialize', c)).protocolVersion).toBe(1);
    const session = await answered(
      c.conn.agent.request('session/new', { cwd: rec.ws, mcpServers: [] }),
      'session/new',
      c,
    );
    const r = await answered(
      c.conn.agent.request('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: PROMPT }],
      }),
      'session/prompt',
      c,
    );
    expect(r.stopReason).toBe('end_turn');
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
    expect(c.stderr()).toContain(`all ${frames.length} recorded frames played`);
  }, 120_000);
});

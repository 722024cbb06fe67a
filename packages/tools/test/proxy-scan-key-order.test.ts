// The recorder's light scan (scanFrame, used by `proxy --record` without --validate and by the bridge) must
// find the kind, method and id the full decode finds, for every key order and every whitespace: Zed and goose
// write `{"jsonrpc","method","params","id"}`, codex `{"jsonrpc","result","id"}`, WebStorm puts `jsonrpc` last.
// The frames are every frame of the capture fixtures (acp-kit captures, acp-devtools' own exports of real editors
// and agents, the Rust SDK's conductor traces) and of real sessions of the built-in agent (v1 and v2).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../../client/src/index.js';
import { decodeFrame, readCapture, scanFrame, type DecodedFrame } from '../src/proxy/index.js';
import { isObj } from '../../protocol/src/json.js';
import { BIN, cliEnv, ndjson, runCli } from '../../../test/fixtures/cli-helpers.js';
import { jsonLines } from '../../../test/support/json-lines.js';
import { recordTurn } from '../../../test/support/record-turn.js';
import { tempDir } from '../../../test/support/temp.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures');
const conns: ClientConnection[] = [];
afterAll(async () => {
  for (const c of conns.splice(0)) await c.close().catch(() => undefined);
});

/** The raw lines of every capture fixture; acp-devtools exports are read field by field, not through the reader. */
async function fixtureFrames(): Promise<string[]> {
  const raws: string[] = [];
  for (const name of readdirSync(join(FIXTURES, 'proxy-captures')))
    raws.push(...(await readCapture(join(FIXTURES, 'proxy-captures', name))).frames.map((f) => f.raw));
  for (const name of readdirSync(join(FIXTURES, 'rust-conductor')).filter((n) => n.endsWith('.jsons')))
    raws.push(...(await readCapture(join(FIXTURES, 'rust-conductor', name))).frames.map((f) => f.raw));
  for (const name of readdirSync(join(FIXTURES, 'acp-devtools')).filter((n) => n.endsWith('.json'))) {
    const doc: unknown = JSON.parse(readFileSync(join(FIXTURES, 'acp-devtools', name), 'utf8'));
    const messages = isObj(doc) && Array.isArray(doc.messages) ? doc.messages : [];
    for (const m of messages) if (isObj(m) && typeof m.raw === 'string') raws.push(m.raw);
  }
  return raws;
}

const shape = (d: DecodedFrame) => ({ kind: d.kind, method: d.method, id: d.id });
/** What the recorder files a line as: the light scan, or the full decode when the scan declines. */
const recorded = (raw: string) => shape(scanFrame(raw) ?? decodeFrame(raw));

/** `v` as JSON with each object's keys in an order drawn from `rnd` and whitespace drawn from `spaces`. */
function serialize(v: unknown, rnd: () => number, spaces: readonly string[]): string {
  const sp = () => spaces[Math.floor(rnd() * spaces.length)]!;
  if (Array.isArray(v)) return `[${v.map((x) => `${sp()}${serialize(x, rnd, spaces)}${sp()}`).join(',')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    return `{${keys.map((k) => `${sp()}${JSON.stringify(k)}${sp()}:${sp()}${serialize(v[k], rnd, spaces)}${sp()}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

let frames: string[] = [];
beforeAll(async () => {
  const dir = tempDir('acp-scan-');
  const real: string[] = [];
  for (const protocol of [1, 2] as const) {
    const cap = await recordTurn(
      dir,
      protocol,
      'create notes.txt containing hello',
      conns,
      join(dir, `v${protocol}.ndjson`),
    );
    real.push(...(await readCapture(cap)).frames.map((f) => f.raw));
  }
  frames = [...(await fixtureFrames()), ...real];
}, 60_000);

describe('the light scan agrees with the full decode', () => {
  it('on every frame of the fixtures and of real sessions, as written', () => {
    expect(frames.length).toBeGreaterThan(700);
    for (const raw of frames) expect(recorded(raw), raw.slice(0, 200)).toEqual(shape(decodeFrame(raw)));
  });

  it('on every frame with its keys permuted and whitespace added (property)', () => {
    const objects = frames
      .flatMap((raw): unknown[] => {
        try {
          return [JSON.parse(raw)];
        } catch {
          return []; // the non-JSON lines of the fixtures are covered as written above
        }
      })
      .filter(isObj);
    fc.assert(
      fc.property(
        fc.constantFrom(...objects),
        fc.integer(),
        fc.constantFrom([''], ['', ' '], ['', '\t', '\n  '], [' ']),
        (msg, seed, spaces) => {
          const raw = serialize(msg, prng(seed), spaces);
          expect(recorded(raw), raw.slice(0, 200)).toEqual(shape(decodeFrame(raw)));
        },
      ),
      { numRuns: 3000, seed: 23 },
    );
    // each top-level key order of the shapes the editors and agents write, exhaustively
    for (const msg of objects) {
      const keys = Object.keys(msg);
      if (keys.length > 5) continue;
      for (const order of permutations(keys)) {
        const raw = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(msg[k])}`).join(',')}}`;
        expect(recorded(raw), raw.slice(0, 200)).toEqual(shape(decodeFrame(raw)));
      }
    }
  });

  it('on lines that repeat a key or nest the keys it looks for (the last of a repeated key wins in JSON.parse)', () => {
    const lines = [
      '{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}},"id":0}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"id":7,"method":"x","result":1}}}',
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{},"id":2}',
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{},"method":"b"}',
      '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}',
      '{"jsonrpc":"2.0","id":1,"result":{},"method":"late"}',
      '{"jsonrpc":"2.0","id":1,"result":{"id":"nested \\" quote }"},"id":3}',
      '{"jsonrpc":"2.0","method":"n","params":["\\"id\\"",{"a":"]}"}]}',
      '{"jsonrpc":"2.0","method":"n","params":{},"\\u0069d":5}',
      '{"jsonrpc":"2.0","result":{"stopReason":"end_turn"},"id":4}',
    ];
    for (const raw of lines) expect(recorded(raw), raw).toEqual(shape(decodeFrame(raw)));
    // the Zed/goose and codex orders are answered by the scan itself, not only by the fallback
    for (const raw of [lines[0]!, lines[1]!, lines[9]!]) expect(scanFrame(raw), raw).toBeDefined();
  });
});

/**
 * Sends the issue's repro line (Zed's initialize, id after params) through `acp-kit proxy <flags> --record`
 * in front of `acp-kit agent`, waits for the answer (recorded before it was forwarded), closes stdin; the capture.
 */
async function recordZedInitialize(flags: string[]): Promise<string> {
  const cap = join(tempDir('acp-scan-cli-'), 'x.ndjson');
  const proxy = spawn(
    process.execPath,
    [BIN, 'proxy', ...flags, '--record', cap, '--', process.execPath, BIN, 'agent'],
    { env: cliEnv(), stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const exited = new Promise<number | null>((res) => proxy.on('close', (code) => res(code)));
  const out = jsonLines(proxy.stdout);
  proxy.stdin.write(
    '{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}},"id":0}\n',
  );
  expect(await out.next()).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
  proxy.stdin.end();
  expect(await exited).toBe(0);
  return cap;
}

describe('proxy --record without --validate (real processes)', () => {
  it("files Zed's initialize (id after params) as a request: validate finds 0 violations and the answer matched", async () => {
    const cap = await recordZedInitialize([]);
    const c = await readCapture(cap);
    expect(c.frames.map((f) => [f.dir, f.kind, f.method ?? null, f.id ?? null])).toEqual([
      ['editor->agent', 'request', 'initialize', 0],
      ['agent->editor', 'response', null, 0],
    ]);
    const v = await runCli(['validate', cap, '--json']);
    expect(ndjson(v.stdout).at(-1)).toMatchObject({ type: 'result', frames: 2, protocolVersion: 1, violations: 0 });
    expect(v.code).toBe(0);
  }, 30_000);

  it('the bridge recorder (proxy --bridge 1 --record) files it as a request too', async () => {
    const cap = await recordZedInitialize(['--bridge', '1']);
    const c = await readCapture(cap);
    expect(
      c.frames.filter((f) => f.dir === 'editor->agent').map((f) => [f.side ?? 'editor', f.kind, f.method, f.id]),
    ).toEqual([
      ['editor', 'request', 'initialize', 0],
      ['agent', 'request', 'initialize', 0],
    ]);
    const v = await runCli(['validate', cap, '--json']);
    expect(ndjson(v.stdout).at(-1)).toMatchObject({
      type: 'result',
      protocolVersion: 1,
      agentProtocolVersion: 2,
      violations: 0,
    });
  }, 30_000);
});

function* permutations<T>(items: T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield items;
    return;
  }
  for (let i = 0; i < items.length; i++)
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i]!, ...rest];
}

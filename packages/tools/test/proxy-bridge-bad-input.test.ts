// Issue 10 "Tests / bad input" for the bridge (plain and recording proxy: packages/tools/test/proxy-forward.test.ts):
// a v1 agent that writes garbage lines, sends a 50 MB line, or dies mid-turn, behind `acp-kit proxy
// --bridge 2 --record` as a real process. The v2 editor gets what a direct v1 connection gets (the
// same text and stop reason, the same failure), the capture keeps every byte the agent wrote on the
// agent leg, and the bridge neither crashes nor hangs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { frameSide, readCapture, type CaptureFrame } from '../src/proxy/index.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const AGENT = fileURLToPath(new URL('../../../test/fixtures/bridge-bad-agent.mjs', import.meta.url));
const node = process.execPath;

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-bridge-bad-'));
  dirs.push(d);
  return d;
}

interface Side {
  conn: ClientConnection;
  child: ChildProcess;
  exit: Promise<number | null>;
}
/** Connects acp-kit's client over the stdio of a process we spawn (so its exit code is ours to see). */
async function start(args: string[], protocol: 1 | 2, env: NodeJS.ProcessEnv): Promise<Side> {
  const child = spawn(node, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  procs.push(child);
  child.stderr!.resume();
  const exit = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  const conn = await connect({ transport: new StreamTransport(child.stdout!, child.stdin!), protocol });
  conns.push(conn);
  return { conn, child, exit };
}
const agentText = (s: { state: { messageList: Array<{ role: string; text: string }> } }) =>
  s.state.messageList.filter((m) => m.role === 'agent').map((m) => m.text);
/** What the agent wrote, as the agent leg of the capture has it: each raw plus the newline it was split on. */
const agentLegOut = (frames: CaptureFrame[]) =>
  frames
    .filter((f) => frameSide(f) === 'agent' && f.dir === 'agent->editor')
    .map((f) => `${f.raw}\n`)
    .join('');

/** The same prompt directly (v1 client, v1 agent) and through the recording bridge (v2 client). */
async function both(prompt: string): Promise<{
  direct: { text: string[]; result: PromiseSettledResult<{ stopReason: string }>; code: number | null };
  bridged: { text: string[]; result: PromiseSettledResult<{ stopReason: string }>; code: number | null };
  cap: string;
  sent: string;
  proxyPid: number;
}> {
  const d = tmp();
  const cap = join(d, 'cap.ndjson');
  const sent = join(d, 'agent-sent');
  const run = async (args: string[], protocol: 1 | 2, env: NodeJS.ProcessEnv) => {
    const side = await start(args, protocol, env);
    const s = await side.conn.newSession({ cwd: d });
    const [result] = await Promise.allSettled([s.prompt(prompt)]);
    const text = agentText(s);
    await side.conn.close();
    return { text, result, code: await side.exit, pid: side.child.pid! };
  };
  const direct = await run([AGENT], 1, { ...process.env });
  const bridged = await run([BIN, 'proxy', '--bridge', '2', '--record', cap, '--', node, AGENT], 2, {
    ...process.env,
    AGENT_SENT: sent,
    ACP_KIT_DATA_DIR: join(d, 'data'),
  });
  return { direct, bridged, cap, sent: readFileSync(sent, 'utf8'), proxyPid: bridged.pid };
}

describe('proxy --bridge 2 --record: an agent that misbehaves', () => {
  it('garbage lines around a chunk: the editor gets the chunk and end_turn as directly; every garbage line is on the agent leg, byte-exact', async () => {
    const { direct, bridged, cap, sent } = await both('garbage');
    expect(direct.result).toEqual({ status: 'fulfilled', value: expect.objectContaining({ stopReason: 'end_turn' }) });
    expect(bridged.result).toEqual({ status: 'fulfilled', value: expect.objectContaining({ stopReason: 'end_turn' }) });
    expect(bridged.text).toEqual(direct.text);
    expect(bridged.text).toEqual(['still here']);
    expect(bridged.code).toBe(0);
    const { frames } = await readCapture(cap);
    expect(agentLegOut(frames)).toBe(sent);
    const invalid = frames
      .filter((f) => frameSide(f) === 'agent' && f.kind === 'invalid' && f.dir === 'agent->editor')
      .map((f) => f.raw);
    expect(invalid).toEqual([
      'agent banner: not json',
      'garbage line { not json\r',
      '[1,2,3]',
      '\u0000\u0001 binary-ish',
    ]);
    // `[1,2,3]` is a JSON-RPC 2.0 batch of three invalid entries: the bridge answers it as one (-32600, id null each)
    const answers = frames
      .filter((f) => frameSide(f) === 'agent' && f.kind === 'invalid' && f.dir === 'editor->agent')
      .map((f) => JSON.parse(f.raw) as unknown);
    expect(answers).toEqual([
      [1, 2, 3].map((n) => ({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `Invalid request: expected a JSON object, got number ${n}` },
      })),
    ]);
    // the editor leg holds what the editor got: JSON-RPC only
    expect(frames.filter((f) => frameSide(f) === 'editor' && f.kind === 'invalid')).toEqual([]);
  }, 60_000);

  it('a 50 MB chunk: the editor gets all of it as directly, the capture holds the line in full on both legs', async () => {
    const { direct, bridged, cap, sent } = await both('big');
    const size = 50 * 1024 * 1024;
    expect(direct.text.map((t) => t.length)).toEqual([size]);
    expect(bridged.text.map((t) => t.length)).toEqual([size]);
    expect(bridged.result).toEqual({ status: 'fulfilled', value: expect.objectContaining({ stopReason: 'end_turn' }) });
    expect(bridged.code).toBe(0);
    const { frames } = await readCapture(cap);
    // compared as a boolean: a failing diff of two 50 MB strings takes minutes to print
    expect(agentLegOut(frames) === sent).toBe(true);
    const big = (side: 'editor' | 'agent') =>
      frames
        .filter((f) => frameSide(f) === side && f.dir === 'agent->editor' && f.raw.length > size)
        .map((f) => JSON.parse(f.raw).params.update.content.text.length);
    expect(big('agent')).toEqual([size]);
    expect(big('editor')).toEqual([size]);
  }, 120_000);

  it('the agent dies mid-turn: the prompt fails as directly, the bridge exits with code 3, the torn last line is on the agent leg', async () => {
    const { direct, bridged, cap, sent } = await both('die');
    expect(direct.result.status).toBe('rejected');
    expect(bridged.result.status).toBe('rejected');
    expect(bridged.text).toEqual(direct.text);
    expect(bridged.text).toEqual(['about to die']);
    expect(direct.code).toBe(3);
    expect(bridged.code).toBe(3);
    const { frames, metas } = await readCapture(cap);
    expect(agentLegOut(frames)).toBe(`${sent}\n`);
    expect(frames.filter((f) => frameSide(f) === 'agent').at(-1)).toMatchObject({
      dir: 'agent->editor',
      kind: 'invalid',
      raw: '{"jsonrpc":"2.0","id":',
    });
    expect(metas.at(-1)).toMatchObject({ exitCode: 3 });
  }, 60_000);
});

// acp-kit proxy over real processes and pipes: byte-exact forwarding, captures, exit and kill behaviour.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { readCapture, startProxy, type CaptureFrame } from '../src/proxy/index.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));
const node = process.execPath;

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const pidsToKill: number[] = [];
const conns: ClientConnection[] = [];
const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const pid of pidsToKill.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-proxy-'));
  dirs.push(d);
  return d;
}
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
/** Bytes a side of the capture carried: each frame's raw plus the newline it was split on. */
const joined = (frames: CaptureFrame[], dir: CaptureFrame['dir']) =>
  frames
    .filter((f) => f.dir === dir)
    .map((f) => `${f.raw}\n`)
    .join('');

function run(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; stdout: Buffer[]; exit: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(node, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  procs.push(child);
  const stdout: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => stdout.push(b));
  child.stderr!.resume();
  const exit = new Promise<{ code: number | null; signal: string | null }>((res) =>
    child.once('close', (code, signal) => res({ code, signal })),
  );
  return { child, stdout, exit };
}

describe('acp-kit proxy', () => {
  it('a full turn of the built-in agent through --record: the capture holds every frame, in order, byte-identical on both sides', async () => {
    const d = tmp();
    const cap = join(d, 'cap.ndjson');
    const f = (n: string) => join(d, n);
    const env = { ...process.env, ACP_KIT_DATA_DIR: join(d, 'data') };
    // tee (editor side) -> proxy -> tee (agent side) -> built-in agent
    const conn = await connect({
      command: node,
      args: [
        fixture('proxy-tee.mjs'),
        f('editor-sent'),
        f('editor-got'),
        '--',
        node,
        BIN,
        'proxy',
        '--record',
        cap,
        '--',
        node,
        fixture('proxy-tee.mjs'),
        f('agent-got'),
        f('agent-sent'),
        '--',
        node,
        BIN,
        'agent',
      ],
      env,
      protocol: 'auto',
    });
    conns.push(conn);
    const s = await conn.newSession({ cwd: d });
    const r = await s.prompt('hello');
    expect(r.stopReason).toBe('end_turn');
    await conn.close();
    const { header, frames, metas } = await readCapture(cap);
    expect(header).toMatchObject({
      type: 'header',
      format: 'acp-kit-capture',
      agent: [node, fixture('proxy-tee.mjs'), f('agent-got'), f('agent-sent'), '--', node, BIN, 'agent'],
    });
    expect(metas.find((m) => m.protocolVersion !== undefined)?.protocolVersion).toBe(conn.protocolVersion);
    expect(frames.map((x) => x.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(frames[0]).toMatchObject({ dir: 'editor->agent', kind: 'request', method: 'initialize' });
    expect(frames.some((x) => x.dir === 'agent->editor' && x.method === 'session/update')).toBe(true);
    expect(frames.filter((x) => x.method === 'session/prompt')).toHaveLength(1);
    // what the editor wrote = what the agent read = the capture's editor->agent raws, and the other way
    const editorSent = readFileSync(f('editor-sent'), 'utf8');
    expect(readFileSync(f('agent-got'), 'utf8')).toBe(editorSent);
    expect(joined(frames, 'editor->agent')).toBe(editorSent);
    const agentSent = readFileSync(f('agent-sent'), 'utf8');
    expect(readFileSync(f('editor-got'), 'utf8')).toBe(agentSent);
    expect(joined(frames, 'agent->editor')).toBe(agentSent);
  }, 30_000);

  it.each(['plain', 'record'] as const)(
    '%s: forwards non-JSON lines, CRLF, split UTF-8 and a 50 MB line unchanged, and exits with the agent at stdin EOF',
    async (mode) => {
      const d = tmp();
      const cap = join(d, 'cap.ndjson');
      const received = join(d, 'received');
      const p = run(
        [BIN, 'proxy', ...(mode === 'record' ? ['--record', cap] : []), '--', node, fixture('proxy-echo-agent.mjs')],
        { ...process.env, ECHO_RECEIVED: received },
      );
      const big = `{"jsonrpc":"2.0","method":"_x/big","params":{"s":"${'x'.repeat(50 * 1024 * 1024)}"}}\n`;
      const euro = Buffer.from('{"text":"\u20ac"}\r\n', 'utf8');
      const parts: Buffer[] = [
        Buffer.from('plain text, not json\n'),
        euro.subarray(0, 11),
        euro.subarray(11),
        Buffer.from(big),
        Buffer.from('last line without newline'),
      ];
      for (const b of parts) p.child.stdin!.write(b);
      p.child.stdin!.end();
      const { code } = await p.exit;
      expect(code).toBe(0);
      const sent = Buffer.concat(parts);
      expect(readFileSync(received).equals(sent)).toBe(true);
      const banner = Buffer.from('banner: not json\n{"jsonrpc":"2.0","method":"_x/hello"}\r\n');
      expect(Buffer.concat(p.stdout).equals(Buffer.concat([banner, sent]))).toBe(true);
      if (mode === 'plain') return;
      const { frames } = await readCapture(cap);
      const toAgent = frames.filter((x) => x.dir === 'editor->agent');
      expect(toAgent.map((x) => x.kind)).toEqual(['invalid', 'invalid', 'notification', 'invalid']);
      expect(toAgent[1]!.raw).toBe('{"text":"\u20ac"}\r');
      expect(toAgent[2]!.raw.length).toBe(big.length - 1);
      expect(frames.filter((x) => x.dir === 'agent->editor').map((x) => x.raw.slice(0, 30))).toEqual([
        'banner: not json',
        '{"jsonrpc":"2.0","method":"_x/',
        'plain text, not json',
        '{"text":"\u20ac"}\r',
        '{"jsonrpc":"2.0","method":"_x/',
        'last line without newline',
      ]);
    },
    60_000,
  );

  it.each(['plain', 'record'] as const)(
    '%s: an agent that dies mid-turn: the editor sees what a direct connection sees, and the proxy exits with its code',
    async (mode) => {
      const d = tmp();
      const direct = run([fixture('proxy-crash-agent.mjs')]);
      direct.child.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}\n');
      const viaProxy = run([
        BIN,
        'proxy',
        ...(mode === 'record' ? ['--record', join(d, 'c.ndjson')] : []),
        '--',
        node,
        fixture('proxy-crash-agent.mjs'),
      ]);
      viaProxy.child.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}\n');
      const [a, b] = await Promise.all([direct.exit, viaProxy.exit]);
      expect(a.code).toBe(3);
      expect(b.code).toBe(3);
      expect(Buffer.concat(viaProxy.stdout).toString()).toBe(Buffer.concat(direct.stdout).toString());
      if (mode === 'plain') return;
      const { frames, metas } = await readCapture(join(d, 'c.ndjson'));
      expect(frames.map((x) => [x.dir, x.kind])).toEqual([
        ['editor->agent', 'request'],
        ['agent->editor', 'notification'],
        ['agent->editor', 'invalid'],
      ]);
      expect(metas.at(-1)).toMatchObject({ exitCode: 3 });
    },
    20_000,
  );

  it('kill -9 of the proxy mid-stream: every frame the editor received is in the capture', async () => {
    const d = tmp();
    const cap = join(d, 'c.ndjson');
    const pids = join(d, 'pids');
    const p = run([BIN, 'proxy', '--record', cap, '--', node, fixture('proxy-stream-agent.mjs')], {
      ...process.env,
      STREAM_PIDS: pids,
    });
    await until(() => Buffer.concat(p.stdout).toString().split('\n').length > 500, '500 lines');
    p.child.kill('SIGKILL');
    await p.exit;
    const [agentPid, grandPid] = readFileSync(pids, 'utf8').split(' ').map(Number);
    pidsToKill.push(grandPid!, agentPid!);
    const got = Buffer.concat(p.stdout).toString();
    const lines = got.slice(0, got.lastIndexOf('\n') + 1);
    const { frames } = await readCapture(cap);
    expect(lines.length).toBeGreaterThan(0);
    expect(joined(frames, 'agent->editor').startsWith(lines)).toBe(true);
  }, 20_000);

  it('SIGTERM of the proxy ends the agent and its process group, even an agent that ignores SIGTERM', async () => {
    const d = tmp();
    const pids = join(d, 'pids');
    const p = run([BIN, 'proxy', '--', node, fixture('proxy-stream-agent.mjs')], {
      ...process.env,
      STREAM_PIDS: pids,
      STREAM_IGNORE_TERM: '1',
    });
    await until(() => p.stdout.length > 0, 'agent output');
    const [agentPid, grandPid] = readFileSync(pids, 'utf8').split(' ').map(Number);
    pidsToKill.push(grandPid!, agentPid!);
    p.child.kill('SIGTERM');
    const { code } = await p.exit;
    expect(code).toBe(143);
    await until(() => !alive(agentPid!) && !alive(grandPid!), 'agent and grandchild gone');
  }, 20_000);

  // startProxy in this process (the CLI wires process.stdin into the same code, see the EOF test above) so the
  // grace period can be short; the agent and its grandchild are still real processes in their own group.
  it('the editor closes stdin and the agent keeps running: the proxy kills its group after the grace period and exits', async () => {
    const d = tmp();
    const pids = join(d, 'pids');
    const editorIn = new PassThrough();
    const editorOut = new PassThrough();
    let firstOutput!: () => void;
    const output = new Promise<void>((r) => (firstOutput = r));
    editorOut.on('data', () => firstOutput());
    const log: string[] = [];
    const proxy = startProxy({
      command: node,
      args: [fixture('proxy-stream-agent.mjs')],
      env: { ...process.env, STREAM_PIDS: pids },
      editorIn,
      editorOut,
      agentStderr: new PassThrough().resume(),
      log: (l) => log.push(l),
      exitTimeoutMs: 300,
    });
    stops.push(() => proxy.stop());
    await output;
    const [agentPid, grandPid] = readFileSync(pids, 'utf8').split(' ').map(Number);
    pidsToKill.push(grandPid!, agentPid!);
    editorIn.end();
    const { exitCode } = await proxy.done;
    expect(exitCode).toBe(143);
    expect(log).toContain('agent still running 300 ms after stdin closed; killing it');
    await until(() => !alive(agentPid!) && !alive(grandPid!), 'agent and grandchild gone');
  }, 20_000);
});

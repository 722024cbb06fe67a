// stdin EOF on a real agent process (runAgentOnStdio): requests read before the end are answered,
// then the process exits 0.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath, initParams, tempDataDir } from '../../../test/support/agent-harness.js';

const children: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function spawnAgent() {
  const dir = tempDataDir();
  dirs.push(dir);
  const child = spawn(process.execPath, [fixturePath('agent-scripted.mjs')], {
    env: { ...process.env, ACP_KIT_DATA_DIR: dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: any[] = [];
  let buf = '';
  let stderr = '';
  const listeners: Array<() => void> = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
    for (const l of listeners.splice(0)) l();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves with the response to request `id`. */
  const answer = (id: number) =>
    new Promise<any>((resolve) => {
      const check = () => {
        const hit = lines.find((m) => m.id === id && !m.method);
        if (hit) resolve(hit);
        else listeners.push(check);
      };
      check();
    });
  const line = (id: number, method: string, params: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
  return { child, lines, exited, answer, line, stderr: () => stderr };
}

describe('stdin EOF', () => {
  it('answers a session/list written in the same write as the end of stdin, then exits 0', async () => {
    const a = spawnAgent();
    // initialize, session/new and session/list, then the end of input, in one tick
    a.child.stdin.end(
      a.line(1, 'initialize', initParams(2)) +
        a.line(2, 'session/new', { cwd: '/tmp' }) +
        a.line(3, 'session/list', {}),
    );
    expect(await a.exited).toBe(0);
    const list = a.lines.find((m) => m.id === 3);
    expect(list?.result?.sessions?.map((s: any) => s.sessionId)).toEqual([
      a.lines.find((m) => m.id === 2)?.result?.sessionId,
    ]);
  });

  it('v1: a running prompt is cancelled and answered `cancelled` when stdin ends, then the process exits 0', async () => {
    const a = spawnAgent();
    a.child.stdin.write(
      a.line(1, 'initialize', initParams(1)) + a.line(2, 'session/new', { cwd: '/tmp', mcpServers: [] }),
    );
    const { result } = await a.answer(2);
    a.child.stdin.end(
      a.line(3, 'session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'stream 1000 20' }] }),
    );
    expect(await a.exited).toBe(0);
    expect(a.lines.find((m) => m.id === 3)).toMatchObject({ result: { stopReason: 'cancelled' } });
  });
});

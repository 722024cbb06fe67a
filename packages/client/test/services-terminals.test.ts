import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AcpError } from '../../protocol/src/errors.js';
import { TailByteBuffer, TerminalManager } from '../src/services/index.js';
import { alive } from '../../../test/support/process.js';
import { tempDir } from '../../../test/support/temp.js';

const node = process.execPath;
let base: string;
let root: string;
const managers: TerminalManager[] = [];

function manager(opts: ConstructorParameters<typeof TerminalManager>[0] = {}): TerminalManager {
  const m = new TerminalManager(opts);
  managers.push(m);
  return m;
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function acpError(fn: () => unknown): AcpError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AcpError);
    return e as AcpError;
  }
  throw new Error('expected an AcpError');
}

beforeAll(() => {
  base = realpathSync(tempDir('acp-term-'));
  root = path.join(base, 'proj');
  mkdirSync(path.join(root, 'sub'), { recursive: true });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.releaseAll()));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('TerminalManager with real processes (ACP-V1-TERM-02..08)', () => {
  it('returns the id immediately, interleaves stdout+stderr, reports exitStatus only after exit', async () => {
    const m = manager();
    const t0 = Date.now();
    const { terminalId } = m.create({
      command: node,
      args: [
        '-e',
        'process.stdout.write("out1\\n"); setTimeout(() => { process.stderr.write("err2\\n"); setTimeout(() => { process.stdout.write("out3\\n"); process.exit(3); }, 50); }, 1000);',
      ],
    });
    expect(Date.now() - t0).toBeLessThan(800); // ACP-V1-TERM-02: not waiting for the command
    expect(m.output(terminalId).exitStatus).toBeUndefined();
    const status = await m.waitForExit(terminalId);
    expect(status).toEqual({ exitCode: 3, signal: null });
    expect(m.output(terminalId)).toEqual({
      output: 'out1\nerr2\nout3\n',
      truncated: false,
      exitStatus: { exitCode: 3, signal: null },
    });
  });

  it('passes env as [{name,value}] on top of the base environment', async () => {
    const m = manager({ env: { PATH: process.env.PATH, BASE_VAR: 'base' } });
    const { terminalId } = m.create({
      command: node,
      args: ['-e', 'console.log(process.env.ACP_X + "," + process.env.BASE_VAR + "," + process.env.HOME_OVERRIDE)'],
      env: [
        { name: 'ACP_X', value: 'ünïcode value' },
        { name: 'HOME_OVERRIDE', value: '' },
      ],
    });
    await m.waitForExit(terminalId);
    expect(m.output(terminalId).output).toBe('ünïcode value,base,\n');
  });

  it('runs in the requested cwd, which must be absolute and inside the roots', async () => {
    const m = manager({ roots: [root] });
    const { terminalId } = m.create({
      command: node,
      args: ['-e', 'console.log(process.cwd())'],
      cwd: path.join(root, 'sub'),
    });
    await m.waitForExit(terminalId);
    expect(m.output(terminalId).output).toBe(path.join(root, 'sub') + '\n');

    const def = m.create({ command: node, args: ['-e', 'console.log(process.cwd())'] });
    await m.waitForExit(def.terminalId);
    expect(m.output(def.terminalId).output).toBe(root + '\n'); // default: first root

    expect(acpError(() => m.create({ command: node, cwd: 'sub' })).message).toContain(
      'params.cwd must be an absolute path',
    );
    const outside = acpError(() => m.create({ command: node, cwd: base }));
    expect(outside.code).toBe(-32602);
    expect(outside.message).toContain(`params.cwd ${base} is outside the session roots (${root})`);
    expect(acpError(() => m.create({ command: node, cwd: path.join(root, 'nope') })).message).toContain(
      'does not exist',
    );
  });

  it('rejects a command that is not found, naming params.command', () => {
    const e = acpError(() => manager().create({ command: 'definitely-not-a-command-acp' }));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain('params.command');
  });

  it('an outputByteLimit beyond maxOutputByteLimit is lowered to it: a flood keeps only the newest bytes of the cap (issue 24 item 6; 2 GB were allowed before)', async () => {
    const m = manager({ maxOutputByteLimit: 64 * 1024 });
    const { terminalId } = m.create({
      command: node,
      args: ['-e', "process.stdout.write('x'.repeat(1024 * 1024) + 'END')"],
      outputByteLimit: 2 ** 31,
    });
    await m.waitForExit(terminalId);
    const out = m.output(terminalId);
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.output)).toBeLessThanOrEqual(64 * 1024);
    expect(out.output.endsWith('END')).toBe(true);
  });

  it('runs a whole command line through /bin/sh -c when args are empty', async () => {
    const m = manager();
    const { terminalId } = m.create({ command: 'echo hello && echo world | tr a-z A-Z' });
    expect(m.info(terminalId)?.file).toBe('/bin/sh');
    await m.waitForExit(terminalId);
    expect(m.output(terminalId).output).toBe('hello\nWORLD\n');
    // with args the command is executed directly: no shell expansion of $HOME
    const direct = m.create({ command: 'echo', args: ['$HOME'] });
    await m.waitForExit(direct.terminalId);
    expect(m.output(direct.terminalId).output).toBe('$HOME\n');
  });

  it('keeps the newest bytes and cuts on a UTF-8 boundary (ACP-V1-TERM-03)', async () => {
    const m = manager();
    for (const [ch, limit] of [
      ['é', 101], // 2-byte chars, odd limit: the cut lands inside a character
      ['😀', 102], // 4-byte chars
      ['€', 100], // 3-byte chars
    ] as const) {
      const { terminalId } = m.create({
        command: node,
        args: ['-e', `process.stdout.write("START" + ${JSON.stringify(ch)}.repeat(5000) + "END")`],
        outputByteLimit: limit,
      });
      await m.waitForExit(terminalId);
      const res = m.output(terminalId);
      expect(res.truncated).toBe(true);
      expect(Buffer.byteLength(res.output, 'utf8')).toBeLessThanOrEqual(limit);
      expect(Buffer.byteLength(res.output, 'utf8')).toBeGreaterThan(limit - 4);
      expect(res.output).not.toContain('\uFFFD');
      expect(res.output.endsWith('END')).toBe(true);
      expect(res.output.startsWith(ch)).toBe(true);
      expect(Buffer.from(res.output, 'utf8').toString('utf8')).toBe(res.output);
    }
  });

  it('outputByteLimit 0 keeps nothing; small outputs are not truncated', async () => {
    const m = manager();
    const zero = m.create({ command: node, args: ['-e', 'console.log("x")'], outputByteLimit: 0 });
    const small = m.create({ command: node, args: ['-e', 'console.log("x")'], outputByteLimit: 2 });
    await Promise.all([m.waitForExit(zero.terminalId), m.waitForExit(small.terminalId)]);
    expect(m.output(zero.terminalId)).toMatchObject({ output: '', truncated: true });
    expect(m.output(small.terminalId)).toMatchObject({ output: 'x\n', truncated: false });
    expect(acpError(() => m.create({ command: node, outputByteLimit: -1 })).message).toContain(
      'params.outputByteLimit',
    );
  });

  it('kill stops the process group but keeps output until release (ACP-V1-TERM-07)', async () => {
    const m = manager();
    const { terminalId } = m.create({
      command: node,
      args: ['-e', 'console.log("ready"); setInterval(() => {}, 1000)'],
    });
    await until(() => m.output(terminalId).output.includes('ready'));
    const pid = m.info(terminalId)!.pid!;
    await m.kill(terminalId);
    expect(alive(pid)).toBe(false);
    const res = m.output(terminalId);
    expect(res.output).toBe('ready\n');
    expect(res.exitStatus).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(await m.waitForExit(terminalId)).toEqual({ exitCode: null, signal: 'SIGTERM' });
    await m.kill(terminalId); // no-op after exit
  });

  it('kill escalates to SIGKILL when SIGTERM is ignored', async () => {
    const m = manager({ killTimeoutMs: 200 });
    const { terminalId } = m.create({
      command: node,
      args: ['-e', 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)'],
    });
    await until(() => m.output(terminalId).output.includes('ready'));
    await m.kill(terminalId);
    expect(m.output(terminalId).exitStatus).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });

  it('release kills and invalidates the id: -32002 naming the terminalId (ACP-V1-TERM-08)', async () => {
    const m = manager();
    const { terminalId } = m.create({ command: 'sleep', args: ['30'] });
    const pid = m.info(terminalId)!.pid!;
    expect(alive(pid)).toBe(true);
    await m.release(terminalId);
    expect(alive(pid)).toBe(false);
    const e = acpError(() => m.output(terminalId));
    expect(e.code).toBe(-32002);
    expect(e.message).toContain(terminalId);
    expect(e.data).toEqual({ terminalId });
    expect(m.info(terminalId)).toBeUndefined();
    await expect(m.release(terminalId)).rejects.toMatchObject({ code: -32002 });
    await expect(m.kill(terminalId)).rejects.toMatchObject({ code: -32002 });
    await expect(m.waitForExit(terminalId)).rejects.toMatchObject({ code: -32002 });
    expect(acpError(() => m.output('term_unknown')).message).toContain('term_unknown');
  });

  it('checks the owning session when a sessionId is passed', async () => {
    const m = manager();
    const { terminalId } = m.create({ sessionId: 's1', command: 'sleep', args: ['30'] });
    expect(acpError(() => m.output(terminalId, 's2')).code).toBe(-32002);
    expect(m.output(terminalId, 's1').truncated).toBe(false);
    const other = m.create({ sessionId: 's2', command: 'sleep', args: ['30'] });
    await m.releaseSession('s1');
    expect(m.ids()).toEqual([other.terminalId]);
  });

  it('releaseAll kills long-running commands including their children (no orphans)', async () => {
    const m = manager();
    // the shell starts a background sleep: a grandchild in the same process group
    const a = m.create({ command: 'sleep 30 & echo $!; wait' });
    const b = m.create({ command: 'sleep', args: ['30'] });
    await until(() => /\d+\n/.test(m.output(a.terminalId).output));
    const grandchild = Number(m.output(a.terminalId).output.trim());
    const pids = [m.info(a.terminalId)!.pid!, m.info(b.terminalId)!.pid!, grandchild];
    for (const pid of pids) expect(alive(pid)).toBe(true);
    await m.releaseAll();
    await until(() => pids.every((p) => !alive(p)), 3000);
    expect(m.ids()).toEqual([]);
  });

  it('waitForExit rejects with -32800 when its signal aborts', async () => {
    const m = manager();
    const { terminalId } = m.create({ command: 'sleep', args: ['30'] });
    const ac = new AbortController();
    const p = m.waitForExit(terminalId, ac.signal);
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: -32800 });
  });

  it('reports exit when a background job keeps the pipes open', async () => {
    const m = manager();
    const { terminalId } = m.create({ command: 'sleep 30 & echo $!' });
    const status = await m.waitForExit(terminalId);
    expect(status).toEqual({ exitCode: 0, signal: null });
    const straggler = Number(m.output(terminalId).output.trim());
    expect(alive(straggler)).toBe(true);
    // release after exit still cleans up the group member holding the pipes
    await m.release(terminalId);
    await until(() => !alive(straggler), 3000);
  });

  it('streams decoded output to onOutput and reports onExit', async () => {
    const chunks: string[] = [];
    const exits: unknown[] = [];
    const m = manager({ onOutput: (_id, t) => chunks.push(t), onExit: (id, s) => exits.push([id, s]) });
    const { terminalId } = m.create({
      command: node,
      args: [
        '-e',
        'process.stdout.write(Buffer.from([0xc3])); setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x0a])), 50)',
      ],
    });
    await m.waitForExit(terminalId);
    expect(chunks.join('')).toBe('é\n');
    expect(exits).toEqual([[terminalId, { exitCode: 0, signal: null }]]);
  });
});

describe('TerminalManager input validation and limits', () => {
  it('rejects malformed args/env naming the field', () => {
    const m = manager();
    expect(acpError(() => m.create({ command: '' })).message).toContain('params.command');
    expect(acpError(() => m.create({ command: 'echo', args: ['ok', 3 as unknown as string] })).message).toContain(
      'params.args[1]',
    );
    expect(acpError(() => m.create({ command: 'echo', args: ['a\0b'] })).message).toContain('params.args[0]');
    expect(acpError(() => m.create({ command: 'echo', env: [{ name: 'A=B', value: 'x' }] })).message).toContain(
      'params.env[0]',
    );
    expect(acpError(() => m.create({ command: 'echo', env: [{ name: 'A', value: 'x\0' }] })).message).toContain(
      'params.env[0]',
    );
    expect(m.ids()).toEqual([]);
  });

  it('refuses more than maxTerminals unreleased terminals', async () => {
    const m = manager({ maxTerminals: 2 });
    const a = m.create({ command: 'sleep', args: ['30'] });
    m.create({ command: 'sleep', args: ['30'] });
    const e = acpError(() => m.create({ command: 'sleep', args: ['30'] }));
    expect(e.message).toContain('too many terminals');
    await m.release(a.terminalId);
    expect(m.create({ command: 'sleep', args: ['30'] }).terminalId).toMatch(/^term_/);
  });
});

describe('client exit leaves no orphans', () => {
  const dist = path.resolve('packages/client/dist/services/index.js');
  it('the exit hook kills running terminals and stragglers when the client process exits', () => {
    // a real client process: starts terminals, prints their pids, exits without releasing
    const script = `
      import { TerminalManager } from ${JSON.stringify(dist)};
      const m = new TerminalManager();
      const a = m.create({ command: 'sleep', args: ['30'] });
      const b = m.create({ command: 'sleep 30 & echo $!' });
      await m.waitForExit(b.terminalId);
      console.log(JSON.stringify([m.info(a.terminalId).pid, Number(m.output(b.terminalId).output.trim())]));
      process.exit(0);
    `;
    const out = execFileSync(node, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
    const pids = JSON.parse(out) as number[];
    expect(pids).toHaveLength(2);
    return until(() => pids.every((p) => !alive(p)), 3000);
  });
});

describe('TailByteBuffer', () => {
  it('holds back an incomplete trailing character until it completes', () => {
    const b = new TailByteBuffer(Infinity);
    b.append(Buffer.from([0x61, 0xe2, 0x82]));
    expect(b.read(false)).toBe('a');
    b.append(Buffer.from([0xac]));
    expect(b.read(false)).toBe('a€');
  });

  it('never exceeds the limit even when invalid bytes become U+FFFD', () => {
    const b = new TailByteBuffer(4);
    b.append(Buffer.from([0xff, 0xfe, 0xfd, 0xfc, 0xfb]));
    const s = b.read(true);
    expect(Buffer.byteLength(s, 'utf8')).toBeLessThanOrEqual(4);
    expect(b.truncated).toBe(true);
  });

  it('drops oldest bytes across many chunks', () => {
    const b = new TailByteBuffer(5);
    for (const c of ['ab', 'cd', 'ef', 'gh']) b.append(Buffer.from(c));
    expect(b.read(true)).toBe('defgh');
    expect(b.byteLength).toBe(5);
  });
});

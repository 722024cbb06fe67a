// A line longer than the recording proxy holds whole (over V8's string limit of ~512 M characters the proxy used
// to die with --record/--validate) is forwarded unchanged, recorded truncated with a marker, and the proxy goes on.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CaptureWriter, readCapture, startProxy } from '../src/proxy/index.js';
import { BIN, cliEnv, ndjson, runCli } from '../../../test/fixtures/cli-helpers.js';
import { jsonLines } from '../../../test/support/json-lines.js';
import { tempDir } from '../../../test/support/temp.js';

const AGENT = join(import.meta.dirname, '../../../test/fixtures', 'proxy-hash-agent.mjs');
const PREFIX = '{"jsonrpc":"2.0","method":"_test/big","params":{"data":"';
const SMALL = '{"jsonrpc":"2.0","method":"_test/small","params":{}}';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Writes `{PREFIX}x…x"}}\n` of `total` bytes (newline excluded) in 1 MiB chunks, honouring backpressure; its sha256. */
async function writeLongLine(to: Writable, total: number): Promise<string> {
  const hash = createHash('sha256');
  const suffix = '"}}';
  const fill = Buffer.alloc(1024 * 1024, 'x');
  const put = async (b: Buffer) => {
    hash.update(b);
    if (!to.write(b)) await new Promise((r) => to.once('drain', r));
  };
  await put(Buffer.from(PREFIX));
  let left = total - PREFIX.length - suffix.length;
  while (left > 0) {
    const n = Math.min(left, fill.length);
    await put(n === fill.length ? fill : fill.subarray(0, n));
    left -= n;
  }
  await put(Buffer.from(suffix));
  to.write('\n');
  return hash.digest('hex');
}

describe('a line over the proxy limit', () => {
  it('default limit, real processes: a 520 MiB line with --record --validate is forwarded byte-exact, recorded truncated, and the proxy goes on', async () => {
    const dir = tempDir('acp-long-');
    const cap = join(dir, 'cap.ndjson');
    const proxy = spawn(
      process.execPath,
      [BIN, 'proxy', '--record', cap, '--validate', '--', process.execPath, AGENT],
      { env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    proxy.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((res) => proxy.on('close', (code) => res(code)));
    const out = jsonLines(proxy.stdout);
    // the next line the agent answered, or the proxy's exit (it used to die here) as a failure
    const answer = () =>
      Promise.race([
        out.next(),
        exited.then((code) => Promise.reject(new Error(`the proxy exited ${code}: ${stderr}`))),
      ]);
    const total = 520 * 1024 * 1024;
    const hash = await Promise.race([
      writeLongLine(proxy.stdin, total),
      exited.then((code) => Promise.reject(new Error(`the proxy exited ${code}: ${stderr}`))),
    ]);
    expect(await answer()).toEqual({ jsonrpc: '2.0', method: '_test/line', params: { bytes: total, sha256: hash } });
    // still forwarding and recording line by line
    proxy.stdin.write(`${SMALL}\n`);
    expect(await answer()).toEqual({
      jsonrpc: '2.0',
      method: '_test/line',
      params: { bytes: SMALL.length, sha256: sha(SMALL) },
    });
    proxy.stdin.end();
    expect(await exited, stderr).toBe(0);
    const c = await readCapture(cap);
    expect(c.frames.map((f) => [f.dir, f.kind, f.method ?? null, f.truncated ?? null])).toEqual([
      ['editor->agent', 'invalid', null, total],
      ['agent->editor', 'notification', '_test/line', null],
      ['editor->agent', 'notification', '_test/small', null],
      ['agent->editor', 'notification', '_test/line', null],
    ]);
    expect(c.frames[0]!.raw.startsWith(PREFIX)).toBe(true);
    expect(Buffer.byteLength(c.frames[0]!.raw)).toBe(64 * 1024);
    const v = await runCli(['validate', cap, '--json']);
    expect(ndjson(v.stdout).at(-1)).toMatchObject({ type: 'result', frames: 4, violations: 0 });
  }, 120_000);

  it('a configured limit: lines around it, a multi-byte character cut at the head, lines in one chunk and across chunks', async () => {
    const dir = tempDir('acp-long-');
    const cap = join(dir, 'cap.ndjson');
    const recorder = new CaptureWriter(cap, { acpKit: '0.0.0-test', agent: ['hash-agent'] });
    const editorIn = new PassThrough();
    const editorOut = new PassThrough();
    const proxy = startProxy({
      command: process.execPath,
      args: [AGENT],
      editorIn,
      editorOut,
      agentStderr: new PassThrough().resume(),
      recorder,
      maxLineBytes: 70 * 1024,
      log: () => undefined,
    });
    const out = jsonLines(editorOut);
    const long = (n: number, ch: string) => `${PREFIX}${ch.repeat(n)}"}}`;
    // 60 KiB fits; 80 KiB of "é" (2 bytes each, after an odd number of bytes) does not, and its 64 KiB head ends inside a character
    const lines = [
      long(60 * 1024, 'a'),
      long(1, 'a').replace('a', `a${'é'.repeat(40 * 1024)}`),
      SMALL,
      long(100 * 1024, 'b'),
    ];
    editorIn.write(`${lines[0]}\n${lines[1]!.slice(0, 1000)}`);
    editorIn.write(`${lines[1]!.slice(1000)}\n${lines[2]}\n${lines[3]}\n`);
    for (const l of lines)
      expect(await out.next()).toEqual({
        jsonrpc: '2.0',
        method: '_test/line',
        params: { bytes: Buffer.byteLength(l), sha256: sha(l) },
      });
    editorIn.end();
    expect((await proxy.done).exitCode).toBe(0);
    recorder.close();
    const sent = (await readCapture(cap)).frames.filter((f) => f.dir === 'editor->agent');
    expect(sent.map((f) => [f.kind, f.truncated ?? null])).toEqual([
      ['notification', null],
      ['invalid', Buffer.byteLength(lines[1]!)],
      ['notification', null],
      ['invalid', Buffer.byteLength(lines[3]!)],
    ]);
    expect(sent[0]!.raw).toBe(lines[0]);
    expect(lines[1]!.startsWith(sent[1]!.raw)).toBe(true);
    expect(sent[1]!.raw).not.toContain('\uFFFD');
    expect(Buffer.byteLength(sent[1]!.raw)).toBe(64 * 1024 - 1);
    expect(sent[3]!.raw).toBe(lines[3]!.slice(0, 64 * 1024));
  }, 30_000);
});

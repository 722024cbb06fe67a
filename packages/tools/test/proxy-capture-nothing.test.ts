// Never "clean" on nothing: a capture with no frame (empty, only a header, every line skipped), a directory and an
// unreadable file make validate, stats, diff and captures show exit 2 with a message naming the file and what is
// wrong (with --json: a result line), never "0 frames: no violations" (exit 0) or "internal error" (exit 1).
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, ndjson, runCli, type CliResult } from '../../../test/fixtures/cli-helpers.js';
import { runCliInProcess } from '../../../test/fixtures/cli-in-process.js';
import { tempDir } from '../../../test/support/temp.js';

const ZED = join(import.meta.dirname, '../../../test/fixtures', 'acp-devtools', 'zed-1.5.4-claude-code-0.43.0.json');
const HEADER =
  '{"type":"header","format":"acp-kit-capture","formatVersion":1,"acpKit":"0.1.0","agent":["a"],"start":"2026-11-20T10:00:00.000Z"}';

/** Each command that reads one capture, with and without --json. */
const commands = (p: string): string[][] => [
  ['validate', p],
  ['validate', p, '--json'],
  ['stats', p],
  ['stats', p, '--json'],
  ['diff', p, p],
  ['diff', p, p, '--json'],
  ['captures', 'show', p],
  ['captures', 'export', p],
];

function expectRefused(r: CliResult, args: string[], message: RegExp): void {
  const what = args.join(' ');
  expect(r.code, `${what}\n${r.stdout}${r.stderr}`).toBe(2);
  expect(r.stderr, what).not.toMatch(/internal error/);
  if (args.includes('--json')) {
    const last = ndjson(r.stdout).at(-1);
    expect(last, what).toMatchObject({ type: 'result', exitCode: 2 });
    expect(last?.error?.message, what).toMatch(message);
  } else expect(r.stderr, what).toMatch(message);
  expect(r.stdout, what).not.toMatch(/no violations|no differences/);
}

/**
 * Every command of {@link commands} on `path`, as real `acp-kit` processes or in this process: the
 * refusal is the commands' reading of the file (no process, terminal or agent involved), so one
 * kind of capture goes through real processes (the exit code, stdout and stderr a shell sees) and
 * the others in process (~0.2 s of CPU saved per command run, the same assertions).
 */
async function expectAllRefused(path: string, message: RegExp, how: 'processes' | 'in process'): Promise<void> {
  const runs = commands(path);
  const results =
    how === 'processes'
      ? await Promise.all(runs.map((args) => runCli(args)))
      : await Promise.all(runs.map((args) => runCliInProcess(args)));
  results.forEach((r, i) => expectRefused(r, runs[i]!, message));
}

const esc = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('captures with nothing to check are refused (exit 2)', () => {
  it('an empty file and a capture with only its header', async () => {
    const d = tempDir('acp-nothing-');
    const empty = join(d, 'empty.ndjson');
    writeFileSync(empty, '');
    const header = join(d, 'header.ndjson');
    writeFileSync(header, `${HEADER}\n`);
    await expectAllRefused(empty, new RegExp(`${esc(empty)}: no frames \\(an empty capture`), 'processes');
    await expectAllRefused(header, new RegExp(`${esc(header)}: no frames \\(an empty capture`), 'in process');
  }, 60_000);

  it('a capture whose lines were all skipped: the count and the first reason at its real line', async () => {
    const d = tempDir('acp-nothing-');
    const p = join(d, 'skipped.ndjson');
    writeFileSync(
      p,
      [HEADER, '', '{"seq":1,"dir":"sideways","raw":"{}"}', '{"seq":2,"t":1,"dir":"agent->ed'].join('\n'),
    );
    await expectAllRefused(
      p,
      new RegExp(`${esc(p)}: no frames: 2 lines skipped; the first, line 3: not a frame`),
      'in process',
    );
    // an acp-devtools export whose messages all have a direction acp-devtools never writes
    const doc = JSON.parse(readFileSync(ZED, 'utf8')) as { messages: Array<{ direction: string }> };
    for (const m of doc.messages) m.direction = m.direction.replace('-to-', '->');
    const text = `${JSON.stringify(doc, null, 4)}\n`;
    const dt = join(d, 'export.json');
    writeFileSync(dt, text);
    const line = text.split('\n').findIndex((l) => l.trim() === '"messages": [') + 2;
    await expectAllRefused(
      dt,
      new RegExp(
        `${esc(dt)}: no frames: 18 lines skipped; the first, line ${line}: messages\\[0\\]: direction "editor->agent" is neither`,
      ),
      'in process',
    );
  }, 60_000);

  it('a directory', async () => {
    const d = tempDir('acp-nothing-');
    await expectAllRefused(d, new RegExp(`${esc(d)} is a directory, not a capture file`), 'in process');
  }, 60_000);

  it('a file the user may not read (EACCES: run as nobody when the tests run as root)', async () => {
    const d = tempDir('acp-nothing-');
    chmodSync(d, 0o755);
    const p = join(d, 'secret.ndjson');
    writeFileSync(p, `${HEADER}\n`);
    chmodSync(p, 0o000);
    const asRoot = process.getuid?.() === 0;
    for (const args of [
      ['validate', p, '--json'],
      ['stats', p],
    ]) {
      // root reads any file: drop to nobody for the CLI, so the open really fails with EACCES
      const child = spawn(process.execPath, [BIN, ...args], {
        env: cliEnv({ ACP_KIT_DATA_DIR: d }),
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const code = await new Promise<number | null>((res) => child.on('close', res));
      expectRefused(
        { code, signal: null, stdout, stderr },
        args,
        new RegExp(`cannot read ${esc(p)}: permission denied`),
      );
    }
  }, 60_000);

  it('a capture with frames and a torn last line is read, the skipped line noted on stderr', async () => {
    const d = tempDir('acp-nothing-');
    const p = join(d, 'torn.ndjson');
    writeFileSync(
      p,
      [
        HEADER,
        '{"seq":1,"t":0,"dir":"editor->agent","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"x\\"}","kind":"notification","method":"x"}',
        '{"seq":2,"t":1,"dir":"agent->ed',
      ].join('\n'),
    );
    const r = await runCli(['validate', p, '--json']);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({ type: 'result', frames: 1, violations: 0 });
    expect(r.stderr).toBe(`${p}: 1 line skipped; line 3: not JSON (torn line)\n`);
  });
});

/**
 * Start-up of the CLI commands scripts and tests spawn most (`run`, the capture commands): what
 * they load from node_modules. Every package costs module files to resolve, read and compile
 * before the first byte of work. `diff` (19 files) is needed only by `acp-kit diff` and by a turn
 * that shows a file diff; `ink`/`marked` only by `chat`. Real processes (this is about what a
 * process loads); needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedModules } from './support/module-trace.js';
import { tempDir } from './support/temp.js';

const ROOT = resolve('.');
const TRACE = resolve('test/fixtures/module-trace.mjs');


/** Runs `acp-kit ...args` under the module tracer; returns its exit code, stdout and the packages it loaded. */
function trace(args: string[], data: string): Promise<{ code: number | null; stdout: string; packages: string[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(TRACE).href, 'bin/acp-kit.js', ...args], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ACP_KIT_DATA_DIR: data, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no exit within 20 s\nstdout: ${out}\nstderr: ${err}`));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout: out, packages: loadedModules(err).packages });
    });
  });
}

function writeCapture(dir: string): string {
  const file = join(dir, 'c.ndjson');
  const header = JSON.stringify({ type: 'header', format: 'acp-kit-capture', formatVersion: 1, acpKit: '0', agent: { command: 'x', args: [] }, start: new Date(0).toISOString() });
  const raw = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2, capabilities: {} } });
  writeFileSync(file, `${header}\n${JSON.stringify({ seq: 1, t: 0, dir: 'editor->agent', raw, kind: 'request', method: 'initialize', id: 1 })}\n`);
  return file;
}

describe('start-up: packages the often-spawned CLI commands load', () => {
  it('`acp-kit run` (demo model, a turn without a diff) loads commander only: no diff, ink, marked', async () => {
    const data = tempDir('acp-kit-startup-cli-');
    const r = await trace(['run', '--model', 'demo', 'hello'], data);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.packages).toEqual(['commander']);
  });

  it('`acp-kit validate`, `stats` and `captures show` load commander only (the capture diff package stays out)', async () => {
    const data = tempDir('acp-kit-startup-cli-');
    const file = writeCapture(data);
    for (const command of [['validate', file], ['stats', file], ['captures', 'show', file]]) {
      const r = await trace(command, data);
      // validate: 1 = the capture was read and has violations (an unanswered initialize); 2 would be unreadable
      expect(r.code, command.join(' ')).toBe(command[0] === 'validate' ? 1 : 0);
      expect(r.packages, command.join(' ')).toEqual(['commander']);
    }
  });

  it('`acp-kit diff` still loads the diff package it needs and compares', async () => {
    const data = tempDir('acp-kit-startup-cli-');
    const file = writeCapture(data);
    const r = await trace(['diff', file, file], data);
    expect(r.code).toBe(0);
    expect(r.packages).toContain('diff');
  });
});

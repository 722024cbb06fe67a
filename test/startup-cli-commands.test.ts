/**
 * Start-up of the CLI commands scripts and tests spawn most (`run`, the capture commands): what
 * they load from node_modules. Every package costs module files to resolve, read and compile
 * before the first byte of work. `diff` (19 files) is needed only by `acp-kit diff` and by a turn
 * that shows a file diff; `ink`/`marked` only by `chat`. Real processes (this is about what a
 * process loads); needs `npm run build`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadedModules, runTraced } from './support/module-trace.js';
import { tempDir } from './support/temp.js';

/** Runs `acp-kit ...args` under the module tracer; returns its exit code, stdout and the packages it loaded. */
async function trace(
  args: string[],
  data: string,
): Promise<{ code: number | null; stdout: string; packages: string[] }> {
  const r = await runTraced(['bin/acp-kit.js', ...args], { ACP_KIT_DATA_DIR: data, NO_COLOR: '1' });
  return { code: r.code, stdout: r.stdout, packages: loadedModules(r.stderr).packages };
}

function writeCapture(dir: string): string {
  const file = join(dir, 'c.ndjson');
  const header = JSON.stringify({
    type: 'header',
    format: 'acp-kit-capture',
    formatVersion: 1,
    acpKit: '0',
    agent: { command: 'x', args: [] },
    start: new Date(0).toISOString(),
  });
  const raw = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: 2, capabilities: {} },
  });
  writeFileSync(
    file,
    `${header}\n${JSON.stringify({ seq: 1, t: 0, dir: 'editor->agent', raw, kind: 'request', method: 'initialize', id: 1 })}\n`,
  );
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
    for (const command of [
      ['validate', file],
      ['stats', file],
      ['captures', 'show', file],
    ]) {
      const r = await trace(command, data);
      // validate: 1 = the capture was read and has violations (an unanswered initialize); 2 would be unreadable
      expect(r.code, command.join(' ')).toBe(command[0] === 'validate' ? 1 : 0);
      expect(r.packages, command.join(' ')).toEqual(['commander']);
    }
  });

  it('`acp-kit profiles list` checks the config file with the ajv the CLI bundle carries (acp-kit does not depend on ajv)', async () => {
    const data = tempDir('acp-kit-startup-cli-');
    mkdirSync(join(data, 'acp-kit'));
    // a bad field: the check really ran (and named it) with the bundled ajv
    writeFileSync(join(data, 'acp-kit', 'config.json'), JSON.stringify({ profiles: { p: { mode: 1 } } }));
    const r = await runTraced(['bin/acp-kit.js', 'profiles', 'list'], { XDG_CONFIG_HOME: data, NO_COLOR: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/profiles\.p\.mode: must be string/);
    expect(loadedModules(r.stderr).packages).toEqual(['commander']);
  });

  it('`acp-kit diff` still loads the diff package it needs and compares', async () => {
    const data = tempDir('acp-kit-startup-cli-');
    const file = writeCapture(data);
    const r = await trace(['diff', file, file], data);
    expect(r.code).toBe(0);
    expect(r.packages).toContain('diff');
  });
});

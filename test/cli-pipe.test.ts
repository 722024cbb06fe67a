import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './support/temp.js';

const bin = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));

describe('acp-kit run --json | head -1', () => {
  it('exits quietly when the reader closes the pipe (no EPIPE crash)', async () => {
    const cwd = tempDir('acp-pipe-');
    const child = spawn(process.execPath, [bin, 'run', '--json', 'list files'], {
      cwd,
      env: { ...process.env, ACP_KIT_DATA_DIR: join(cwd, '.data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const first = await new Promise<string>((resolve) => {
      let buf = '';
      child.stdout.on('data', (d) => {
        buf += d;
        const i = buf.indexOf('\n');
        if (i >= 0) {
          child.stdout.destroy(); // like `head -1`
          resolve(buf.slice(0, i));
        }
      });
    });
    expect(JSON.parse(first).type).toBe('connection');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(stderr).not.toMatch(/Unhandled 'error' event|EPIPE/);
    expect(code).toBe(0);
  });
});

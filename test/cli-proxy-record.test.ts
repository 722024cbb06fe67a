// `proxy --record` to a path in a folder that does not exist: exit 2 naming the missing folder, no
// folder created, the agent not started (real `acp-kit` process; needs `npm run build`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BIN } from './fixtures/cli-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('proxy --record into a missing folder: exit 2 naming the folder, nothing created, the agent not started', () => {
  const d = mkdtempSync(join(tmpdir(), 'acp-proxy-record-'));
  dirs.push(d);
  const missing = join(d, 'no-such-dir', 'deeper');
  const marker = join(d, 'started');
  const r = spawnSync(
    process.execPath,
    [
      BIN,
      'proxy',
      '--record',
      join(missing, 'x.ndjson'),
      '--',
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`,
    ],
    { input: '', encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toContain(`the folder ${missing} does not exist`);
  expect(r.stderr).toMatch(/hint: Create it first \(mkdir -p /);
  expect(r.stdout).toBe('');
  expect(existsSync(join(d, 'no-such-dir'))).toBe(false);
  expect(existsSync(marker)).toBe(false);
});

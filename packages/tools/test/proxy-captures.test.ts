// Capture files: reading (torn last line; acp-devtools exports: proxy-devtools-export.test.ts), and the captures CLI (list, show, export redacted).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureWriter, readCapture } from '../src/proxy/index.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-proxy-cap-'));
  dirs.push(d);
  return d;
}

const SECRET_REQ = {
  jsonrpc: '2.0',
  id: 1,
  method: 'session/new',
  params: {
    cwd: '/w',
    mcpServers: [
      { name: 'gh', command: 'gh-mcp', args: [], env: [{ name: 'GITHUB_TOKEN', value: 'ghp_SECRET1' }] },
      {
        type: 'http',
        name: 'api',
        url: 'https://x',
        headers: [
          { name: 'Authorization', value: 'Bearer SECRET2' },
          { name: 'Accept', value: 'json' },
        ],
      },
    ],
    _meta: { apiToken: 'SECRET3', traceId: 'keep-me' },
  },
};
const AUTH_RESP = {
  jsonrpc: '2.0',
  id: 0,
  result: {
    protocolVersion: 1,
    agentCapabilities: {},
    authMethods: [{ id: 'key', name: 'Key', type: 'env_var', env: { OPENAI_API_KEY: 'SECRET4' } }],
  },
};

function writeCapture(path: string): void {
  const w = new CaptureWriter(path, { acpKit: '0.1.0', agent: ['my-agent', '--acp'] });
  w.frame(
    'editor->agent',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  );
  w.frame('agent->editor', JSON.stringify(AUTH_RESP));
  w.meta({ protocolVersion: 1 });
  w.frame('editor->agent', JSON.stringify(SECRET_REQ));
  w.close();
}

describe('capture files', () => {
  it('a torn last line (a crash mid-write) is skipped on read; every whole frame is kept', async () => {
    const p = join(tmp(), 'c.ndjson');
    writeCapture(p);
    appendFileSync(p, '{"seq":4,"t":1.5,"dir":"agent->ed');
    const c = await readCapture(p);
    expect(c.frames.map((f) => [f.seq, f.dir, f.kind, f.method ?? f.id])).toEqual([
      [1, 'editor->agent', 'request', 'initialize'],
      [2, 'agent->editor', 'response', 0],
      [3, 'editor->agent', 'request', 'session/new'],
    ]);
    expect(c.metas).toEqual([expect.objectContaining({ type: 'meta', seq: 2, protocolVersion: 1 })]);
    expect(c.skipped).toEqual([{ line: 6, reason: 'not JSON (torn line)' }]);
  });

  it('captures export redacts auth _meta, MCP env values, authorization headers and auth method env; keeps the rest', () => {
    const d = tmp();
    const p = join(d, 'c.ndjson');
    writeCapture(p);
    for (const format of ['ndjson', 'json']) {
      const r = spawnSync(process.execPath, [BIN, 'captures', 'export', p, '--format', format], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).not.toMatch(/SECRET\d/);
      expect(r.stdout).toContain('keep-me');
      expect(r.stdout).toContain('GITHUB_TOKEN');
    }
    const lines = spawnSync(process.execPath, [BIN, 'captures', 'export', p], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { raw?: string; type?: string });
    expect(lines[0]).toMatchObject({ type: 'header', agent: ['my-agent', '--acp'] });
    const req = JSON.parse(lines[3]!.raw!) as typeof SECRET_REQ;
    expect(req.params.mcpServers[0]!.env).toEqual([{ name: 'GITHUB_TOKEN', value: '[redacted]' }]);
    expect(req.params.mcpServers[1]!.headers).toEqual([
      { name: 'Authorization', value: '[redacted]' },
      { name: 'Accept', value: 'json' },
    ]);
    expect(req.params._meta).toEqual({ apiToken: '[redacted]', traceId: 'keep-me' });
  });

  it('captures list and show read the default folder under ACP_KIT_DATA_DIR', () => {
    const d = tmp();
    mkdirSync(join(d, 'captures'));
    writeCapture(join(d, 'captures', 'one.ndjson'));
    const env = { ...process.env, ACP_KIT_DATA_DIR: d };
    const list = spawnSync(process.execPath, [BIN, 'captures', 'list', '--json'], { encoding: 'utf8', env });
    expect(list.status).toBe(0);
    expect(JSON.parse(list.stdout.split('\n')[0]!)).toMatchObject({
      path: join(d, 'captures', 'one.ndjson'),
      agent: 'my-agent --acp',
      frames: 3,
    });
    const show = spawnSync(process.execPath, [BIN, 'captures', 'show', join(d, 'captures', 'one.ndjson')], {
      encoding: 'utf8',
      env,
    });
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/capture of my-agent --acp/);
    expect(show.stdout).toMatch(/3 .*editor -> agent +request session\/new #1/);
    expect(show.stdout).toMatch(/protocol version 1/);
  });

  it('proxy --record without a file writes one capture per run into <data>/captures', () => {
    const d = tmp();
    const env = { ...process.env, ACP_KIT_DATA_DIR: d };
    const r = spawnSync(
      process.execPath,
      [BIN, 'proxy', '--record', '--', process.execPath, '-e', 'process.stdin.pipe(process.stdout)'],
      { input: 'a\nb\n', encoding: 'utf8', env },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('a\nb\n');
    const list = spawnSync(process.execPath, [BIN, 'captures', 'list', '--json'], { encoding: 'utf8', env });
    expect(JSON.parse(list.stdout.split('\n')[0]!)).toMatchObject({ frames: 4 });
  });

  it('proxy --record to a path that cannot be written: exit 2 with the path and a hint, the agent is not started', () => {
    const d = tmp();
    const marker = join(d, 'started');
    const blocker = join(d, 'file');
    appendFileSync(blocker, 'x');
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'proxy',
        '--record',
        join(blocker, 'c.ndjson'),
        '--',
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`,
      ],
      { input: '', encoding: 'utf8' },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot write the capture ${join(blocker, 'c.ndjson')}`);
    expect(r.stdout).toBe('');
    expect(existsSync(marker)).toBe(false);
  });
});

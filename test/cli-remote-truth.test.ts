// `acp-kit run --agent-url` against a real `acp-kit serve` (bin/acp-kit.js, 127.0.0.1, port 0)
// serving the scripted e2e agent (agentInfo `e2e-agent 1.0.0`): the header and the `--json`
// connection line name the remote agent, not the local built-in one; `--model` with
// `--agent-url` is a usage error; a missing or wrong token is exit 11 naming where the token goes.
// Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/e2e-agent.mjs', import.meta.url));
const TOKEN = 'remote-truth-token';
let serve: ChildProcess | undefined;
let urls: { url: string; ws: string } = { url: '', ws: '' };
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'acp-remote-truth-'));
  serve = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--port',
      '0',
      '--token',
      TOKEN,
      '--agent',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(AGENT)}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  serve.stderr!.on('data', (c) => (err += c));
  urls = await new Promise((resolve, reject) => {
    serve!.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    createInterface({ input: serve!.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  });
}, 30_000);
afterAll(() => {
  serve?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], token?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ACP_KIT_AGENT_TOKEN: token, NO_COLOR: '1' };
  if (token === undefined) delete env.ACP_KIT_AGENT_TOKEN;
  delete env.ACP_KIT_AGENT;
  const p = spawn(process.execPath, [BIN, 'run', '--cwd', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (c) => (stdout += c));
  p.stderr.on('data', (c) => (stderr += c));
  return new Promise((r) => p.once('close', (code) => r({ code, stdout, stderr })));
}

it('the --json connection line and the text header name the remote agent, not the local built-in one', async () => {
  const json = await run(['--agent-url', urls.ws, '--json', 'hi'], TOKEN);
  expect(json.code, json.stderr).toBe(0);
  const connection = JSON.parse(json.stdout.split('\n')[0]!);
  expect(connection.type).toBe('connection');
  expect(connection.agentInfo.name).toBe('e2e-agent');
  expect(connection.agent).toEqual([urls.ws]);
  expect(connection).not.toHaveProperty('model');
  const text = await run(['--agent-url', urls.url, 'hi'], TOKEN);
  expect(text.code, text.stderr).toBe(0);
  const header = text.stderr.split('\n')[0]!;
  expect(header).toContain('e2e-agent 1.0.0');
  expect(header).not.toMatch(/model|built-in/);
}, 30_000);

// (--model itself names the remote session's model: test/cli-session-config.test.ts)
it('--base-url with --agent-url is a usage error saying what to do', async () => {
  const r = await run(['--agent-url', urls.ws, '--base-url', 'http://127.0.0.1:9/v1', 'hi'], TOKEN);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--base-url chooses the model of the built-in agent, but --agent-url/);
  expect(r.stderr).toMatch(/hint: Drop --base-url/);
  const j = await run(['--agent-url', urls.ws, '--model-name', 'x', '--json', 'hi'], TOKEN);
  expect(j.code).toBe(2);
  expect(JSON.parse(j.stdout.trim().split('\n').pop()!)).toMatchObject({ type: 'result', exitCode: 2 });
}, 30_000);

for (const [what, token] of [
  ['missing', undefined],
  ['wrong', 'not-the-token'],
] as const) {
  for (const which of ['ws', 'url'] as const) {
    it(`a ${what} token (${which === 'ws' ? 'WebSocket' : 'HTTP'}) is exit 11 naming ACP_KIT_AGENT_TOKEN and --agent-token-file`, async () => {
      const r = await run(['--agent-url', urls[which], 'hi'], token);
      expect(r.code, r.stderr).toBe(11);
      expect(r.stderr).toMatch(/refused the token|needs a token/);
      expect(r.stderr).toContain('ACP_KIT_AGENT_TOKEN');
      expect(r.stderr).toContain('--agent-token-file');
      expect(r.stderr).not.toContain('--agent command line');
    }, 30_000);
  }
}

it('a token file with the right token connects', async () => {
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const r = await run(['--agent-url', urls.ws, '--agent-token-file', join(dir, 'token'), '--json', 'hi']);
  expect(r.code, r.stderr).toBe(0);
}, 30_000);

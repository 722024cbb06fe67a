/**
 * `acp-kit run` / `acp-kit login` against a hand-written agent (real processes): updates sent
 * while the session opens reach `--json`, `--timeout` bounds session/new, and terminal-auth login
 * hints and the interactive login (v1 `_meta["terminal-auth"]`, v2 `type: "terminal"`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readCapture } from '../packages/tools/src/captures/capture.js';
import { BIN, FIXTURES, cliEnv, runCli, startCli, tempDir, waitFor } from './fixtures/cli-helpers.js';

const AGENT = join(FIXTURES, 'client-order-agent.mjs');
/** serve's token (a strong one: serve refuses weak tokens). */
const TOKEN = 'setup-test-token-0123456789abcdef';
const LOGIN = join(FIXTURES, 'login-helper.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = tempDir('setup');
  dirs.push(dir);
  const env = cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') });
  return { dir, env, token: join(dir, 'token') };
}
const agentLine = (...args: string[]) => [process.execPath, AGENT, ...args].map((w) => JSON.stringify(w)).join(' ');
/** Where the muted agent's capture reached: the session/new id, and the ids each `$/cancel_request` named. */
async function sessionNewWithdrawals(capture: string): Promise<{ asked: unknown; withdrawn: unknown[] }> {
  const sent = (await readCapture(capture)).frames.filter((f) => f.dir === 'editor->agent');
  const asked = sent.find((f) => f.kind === 'request' && f.method === 'session/new')?.id;
  const withdrawn = sent
    .filter((f) => f.method === '$/cancel_request')
    .map((f) => (JSON.parse(f.raw) as { params: { requestId: unknown } }).params.requestId);
  return { asked, withdrawn };
}
/** The muted agent (never answers session/new) behind `acp-kit proxy --record capture`. */
const recordedMutedAgent = (capture: string) =>
  `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} proxy --record ${JSON.stringify(capture)} -- ${agentLine('--mute-new')}`;
const sessionNewSent = (capture: string) =>
  existsSync(capture) && readFileSync(capture, 'utf8').includes('session/new');
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('run --json shows every update', () => {
  it('available_commands_update sent before and with the session/new answer, after the session line, in wire order', async () => {
    const { env, dir } = setup();
    const r = await runCli(['run', '--json', '--cwd', dir, '--agent', agentLine('--version=1'), 'hello'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = lines(r.stdout).map((e) =>
      e.type === 'update'
        ? `update:${(e.update as { sessionUpdate: string; availableCommands?: Array<{ name: string }> }).sessionUpdate}${(e.update as { availableCommands?: Array<{ name: string }> }).availableCommands ? `:${(e.update as { availableCommands: Array<{ name: string }> }).availableCommands.map((c) => c.name).join(',')}` : ''}`
        : String(e.type),
    );
    expect(events).toEqual([
      'connection',
      'session',
      'update:available_commands_update:before',
      'update:available_commands_update:before,after',
      'update:user_message',
      'update:state_update',
      'update:agent_message_chunk',
      'update:state_update',
      'update:session_info_update',
      'result',
    ]);
  });
});

describe('run --timeout', () => {
  it('an agent that never answers session/new: the request is withdrawn with $/cancel_request, clear exit 9 after the limit', async () => {
    const { env, dir } = setup();
    const capture = join(dir, 'cap.ndjson');
    const agent = recordedMutedAgent(capture);
    const r = await runCli(['run', '--timeout', '0.5', '--cwd', dir, '--agent', agent, 'hello'], { env });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('acp-kit: error: the agent did not answer session/new within 0.5 s');
    expect(r.stderr).toContain('raise --timeout');
    // on the wire: the CLI gave up on its own request and told the agent so, naming its id
    const { asked, withdrawn } = await sessionNewWithdrawals(capture);
    expect(withdrawn).toEqual([asked]);
  });

  it('Ctrl-C while session/new is pending: the CLI withdraws it with $/cancel_request at once and exits 130', async () => {
    const { env, dir } = setup();
    const capture = join(dir, 'cap.ndjson');
    const agent = recordedMutedAgent(capture);
    // a --timeout far beyond the test's own limit: only the Ctrl-C can withdraw the request in time
    const run = startCli(['run', '--timeout', '600', '--cwd', dir, '--agent', agent, 'hello'], { env });
    await waitFor(() => sessionNewSent(capture), 15_000, 'session/new on the wire');
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain('did not answer');
    const { asked, withdrawn } = await sessionNewWithdrawals(capture);
    expect(withdrawn).toEqual([asked]);
  }, 30_000);

  it('--agent-url: Ctrl-C while session/new is pending withdraws it through serve, exit 130', async () => {
    const { env, dir } = setup();
    const capture = join(dir, 'cap.ndjson');
    // serve's agent is the recording proxy in front of the muted agent: the capture shows what reached it
    const agent = recordedMutedAgent(capture);
    const serve = startCli(['serve', '--port', '0', '--token', TOKEN, '--agent', agent], { env });
    try {
      const url = await waitFor(() => /listening on (ws:\/\/\S+)/.exec(serve.stderr())?.[1], 20_000, 'serve');
      const run = startCli(['run', '--timeout', '600', '--cwd', dir, '--agent-url', url, 'hello'], {
        env: { ...env, ACP_KIT_AGENT_TOKEN: TOKEN },
      });
      await waitFor(() => sessionNewSent(capture), 15_000, 'session/new on the wire');
      run.child.kill('SIGINT');
      const r = await run.done;
      expect(r.code, r.stderr).toBe(130);
      // the withdrawal reached the agent behind serve, naming the id serve gave the request there
      await waitFor(() => readFileSync(capture, 'utf8').includes('$/cancel_request'), 15_000, 'the withdrawal');
      const { asked, withdrawn } = await sessionNewWithdrawals(capture);
      expect(withdrawn).toEqual([asked]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
  }, 60_000);

  it('refuses a bad value with a usage error', async () => {
    const { env } = setup();
    const r = await runCli(['run', '--timeout', 'soon', 'hello'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--timeout must be a positive number of seconds up to 2000000 (got "soon")');
  });
});

describe('terminal-auth login', () => {
  it('v1, methods only in the -32000 data (kimi): run prints the exact _meta["terminal-auth"] command; login runs it and confirms', async () => {
    const { env, dir, token } = setup();
    const agent = agentLine('--version=1', `--auth-file=${token}`, '--auth-in-error-only');
    const before = await runCli(['run', '--cwd', dir, '--agent', agent, 'hello'], { env });
    expect(before.code).toBe(11);
    expect(before.stderr).toContain('Log in (id login)');
    expect(before.stderr).toContain(`Log in by running this command in a terminal, then try again`);
    expect(before.stderr).toContain(`\n  ${process.execPath} ${LOGIN} ${token}\n`);

    const login = await runCli(['login', '--cwd', dir, '--agent', agent], { env });
    expect(login.stderr).toContain(`acp-kit: running Fixture login: ${process.execPath} ${LOGIN} ${token}`);
    // stdio inherited: the login's own output reaches our stdout
    expect(login.stdout).toBe(`logged in (token written to ${token})\n`);
    expect(login.stderr).toContain('acp-kit: logged in: the agent opened a session');
    expect(login.code).toBe(0);
    expect(existsSync(token)).toBe(true);

    const after = await runCli(['run', '--cwd', dir, '--agent', agent, 'hello'], { env });
    expect(after.code).toBe(0);
  });

  it('v2 type "terminal": the agent itself with the method args; login [METHOD] runs it', async () => {
    const { env, dir, token } = setup();
    const agent = agentLine('--version=2', `--auth-file=${token}`);
    const before = await runCli(['run', '--cwd', dir, '--agent', agent, 'hello'], { env });
    expect(before.code).toBe(11);
    expect(before.stderr).toContain(`\n  ${process.execPath} ${AGENT} --version=2 --auth-file=${token} --login\n`);

    const wrong = await runCli(['login', '--cwd', dir, '--agent', agent, 'nope'], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('the agent offers no auth method "nope"');
    expect(wrong.stderr).toContain(`login: ${process.execPath} ${AGENT} --version=2 --auth-file=${token} --login`);

    const login = await runCli(['login', '--cwd', dir, '--agent', agent, 'login'], { env });
    expect(login.stdout).toBe('logged in via the agent\n');
    expect(login.code).toBe(0);
    expect(existsSync(token)).toBe(true);
  });

  it('a login command that does not log in: exit 11 with the hint', async () => {
    const { env, dir, token } = setup();
    // the token path is a directory the helper cannot write: the helper fails
    const agent = agentLine('--version=1', `--auth-file=${dir}`);
    const r = await runCli(['login', '--cwd', dir, '--agent', agent], { env });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('acp-kit: error: the login command exited with 1');
    expect(existsSync(token)).toBe(false);
  });
});

/**
 * `acp-kit auth login <methodId>` and `acp-kit auth logout` as real processes against the scripted
 * agent served by acp-kit's runtime (test/fixtures/agent-scripted.mjs, AGENT_AUTH=1: an agent
 * method `token`, a terminal method `tlogin` offered only to clients with auth.terminal, logout;
 * it logs what it got to stderr, which --verbose passes on), v1 and v2: the CLI sends v1
 * `authenticate` / v2 `auth/login` and v1 `logout` / v2 `auth/logout`; a method not offered and
 * an agent without logout are clear errors.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

const agent = `${process.execPath} ${join(FIXTURES, 'agent-scripted.mjs')}`;

describe.each(['1', '2'])('acp-kit auth login and logout over v%s', (protocol) => {
  const auth = (args: string[], env: Record<string, string> = { AGENT_AUTH: '1' }) =>
    runCli(['auth', ...args, '--agent', agent, '--protocol', protocol, '--verbose'], {
      cwd: tempDir('auth-login'),
      env: cliEnv(env),
    });

  it('login with an agent method reaches the agent as authenticate (v1) / auth/login (v2)', async () => {
    const r = await auth(['login', 'token', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({ type: 'result', methodId: 'token', authenticated: true });
    expect(r.stderr).toContain('authenticated with token');
    // the wire name of the version, as the agent's runtime received it
    expect(r.stderr).not.toContain(protocol === '1' ? 'auth/login' : '"authenticate"');
  }, 30_000);

  it('a method the agent did not offer is refused before anything is sent, listing the offered ones', async () => {
    // the terminal method is offered only to clients advertising auth.terminal, which the CLI does not
    for (const id of ['nope', 'tlogin']) {
      const r = await auth(['login', id]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`offers no auth method "${id}"`);
      expect(r.stderr).toContain('Its methods: token.');
      expect(r.stderr).not.toContain('authenticated with');
    }
  }, 30_000);

  it('logout reaches the agent as logout (v1) / auth/logout (v2); an agent without it: exit 12', async () => {
    const r = await auth(['logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^logged out {2}/);
    expect(r.stderr).toContain('logged out');
    const bare = await auth(['logout'], {});
    expect(bare.code).toBe(12);
    expect(bare.stderr).toContain('does not support logging out');
    expect(bare.stderr).toContain(protocol === '1' ? 'auth.logout' : 'auth/logout');
  }, 30_000);
});

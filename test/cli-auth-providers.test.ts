/**
 * `acp-kit auth status` and `acp-kit providers list|set|disable` as real processes (needs `npm run
 * build`), against the built-in agent over v1 and v2 (on the demo model, and started on an
 * OpenAI-compatible provider with and without a key, through `--agent`), and an agent without the
 * unstable capabilities (exit code "unsupported", naming the capability). The commands send
 * `auth/status`, `providers/list`, `providers/set` and `providers/disable`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURES, cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

// a hand-written v1 agent without auth.status or providers
const bareAgent = `node ${join(FIXTURES, 'client-order-agent.mjs')} --version=1`;
// the built-in agent started on the OpenAI-compatible provider (no request is made: nothing is prompted)
const openaiAgent = `node ${BIN} agent --model openai --model-name local-model --base-url http://127.0.0.1:9/v1`;

describe('acp-kit auth status and providers', () => {
  it.each(['1', '2'])(
    'the built-in demo agent over v%s: not_required, both providers disabled, set answers the new route',
    async (protocol) => {
      const cwd = tempDir('cli-auth');
      const env = cliEnv({ ACP_KIT_DATA_DIR: tempDir('cli-auth-data'), ROUTE_KEY: 'sk-route' });
      const cli = (args: string[]) => runCli([...args, '--protocol', protocol], { cwd, env });
      const status = await cli(['auth', 'status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(ndjson(status.stdout)).toEqual([{ type: 'result', state: 'not_required', accounts: [], exitCode: 0 }]);

      const list = await cli(['providers', 'list', '--json']);
      expect(list.code, list.stderr).toBe(0);
      expect(ndjson(list.stdout).at(-1)?.providers).toEqual([
        { providerId: 'openai', supported: ['openai'], required: false, current: null },
        { providerId: 'anthropic', supported: ['anthropic'], required: false, current: null },
      ]);
      const human = await cli(['providers', 'list']);
      expect(human.stdout).toBe('openai  disabled  (speaks openai)\nanthropic  disabled  (speaks anthropic)\n');

      const set = await cli([
        'providers',
        'set',
        'anthropic',
        '--endpoint',
        'http://127.0.0.1:9/anthropic',
        '--api-key-env',
        'ROUTE_KEY',
        '--json',
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect(ndjson(set.stdout).at(-1)).toEqual({
        type: 'result',
        providerId: 'anthropic',
        apiType: 'anthropic',
        baseUrl: 'http://127.0.0.1:9/anthropic',
        current: { apiType: 'anthropic', baseUrl: 'http://127.0.0.1:9/anthropic' },
        exitCode: 0,
      });
      // the key never appears in what the CLI prints
      expect(set.stdout + set.stderr).not.toContain('sk-route');
      // an unknown provider is the agent's -32602, naming the field
      const unknown = await cli(['providers', 'disable', 'main']);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('params.providerId');
    },
    60_000,
  );

  it('an agent started on a provider: authenticated with its key, unauthenticated without; its route listed', async () => {
    const cwd = tempDir('cli-auth-openai');
    const base = { ACP_KIT_DATA_DIR: tempDir('cli-auth-openai-data'), OPENAI_API_KEY: undefined };
    const keyed = await runCli(['auth', 'status', '--agent', openaiAgent], {
      cwd,
      env: cliEnv({ ...base, OPENAI_API_KEY: 'sk-test' }),
    });
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stdout).toMatch(/^authenticated {2}.*\n {2}\* OpenAI API key\n$/);
    const bare = await runCli(['auth', 'status', '--agent', openaiAgent, '--json'], { cwd, env: cliEnv(base) });
    expect(ndjson(bare.stdout).at(-1)).toMatchObject({ state: 'unauthenticated', accounts: [] });
    const list = await runCli(['providers', 'list', '--agent', openaiAgent], { cwd, env: cliEnv(base) });
    expect(list.stdout.split('\n')[0]).toBe('openai  openai  http://127.0.0.1:9/v1  (speaks openai)');
  }, 60_000);

  it('an agent without the capabilities: exit 12, the capability named', async () => {
    const cwd = tempDir('cli-auth-bare');
    const env = cliEnv({ ACP_KIT_DATA_DIR: tempDir('cli-auth-bare-data') });
    const status = await runCli(['auth', 'status', '--agent', bareAgent], { cwd, env });
    expect(status.code, status.stderr).toBe(12);
    expect(status.stderr).toContain('unstable auth.status capability');
    const set = await runCli(
      ['providers', 'set', 'openai', '--endpoint', 'http://127.0.0.1:9/', '--agent', bareAgent, '--json'],
      {
        cwd,
        env,
      },
    );
    expect(set.code).toBe(12);
    expect(set.stderr).toContain('unstable providers capability');
    // each names the method it would have sent
    for (const [args, method] of [
      [['auth', 'status'], 'auth/status'],
      [['providers', 'set', 'openai', '--endpoint', 'http://127.0.0.1:9/'], 'providers/set'],
      [['providers', 'list'], 'providers/list'],
      [['providers', 'disable', 'openai'], 'providers/disable'],
    ] as const) {
      const r = await runCli([...args, '--agent', bareAgent], { cwd, env });
      expect(r.code, r.stderr).toBe(12);
      expect(r.stderr).toContain(`(${method})`);
    }
    expect(ndjson(set.stdout).at(-1)).toMatchObject({ type: 'result', exitCode: 12, error: { kind: 'unsupported' } });
  }, 60_000);
});

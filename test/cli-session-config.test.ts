// `run --mode/--model/--config` against real agent processes: the SDK fixture with config options
// (v1 `id`, groups, a boolean), the same fixture with only v1 legacy modes (session/set_mode), and
// the built-in agent (v1 and v2). Each run asks the agent for its state afterwards ("state" answers
// with what the agent holds), so a setting the CLI only claims to have applied fails the test.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, FIXTURES, ndjson, tempDir } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';

const cli = useCli();
const AGENT = `node ${FIXTURES}/cli-config-agent.mjs`;
const modesOnly = () => cliEnv({ CLI_CONFIG_FIXTURE: 'modes' });
// the rows of docs/coverage-claims.json this file covers in the cli layer
const SET_CONFIG_OPTION = 'session/set_config_option';
const SET_MODE = 'session/set_mode';
/** What the fixture logged of `method` calls (with --verbose its stderr reaches ours), in order. */
const calls = (stderr: string, method: string) =>
  [...stderr.matchAll(new RegExp(`^fixture: ${method} (.*)$`, 'gm'))].map((m) => m[1]);

describe('run: session settings of another agent', () => {
  it('--config, --mode and --model are applied through session/set_config_option before the prompt', async () => {
    const r = await cli(
      [
        'run',
        '--verbose',
        '--agent',
        AGENT,
        '--mode',
        'code',
        '--model',
        'smart',
        '--config',
        'effort=high',
        '--config',
        'web=on',
        'state',
      ],
      { env: cliEnv() },
    );
    expect(r.code, r.stderr).toBe(0);
    // the agent's own answer: it holds every value (the group "deep" held "smart"; "on" became true)
    expect(r.stdout).toContain('mode=code model=smart effort=high web=true');
    // --config first, in the order given, then --mode, then --model
    expect(calls(r.stderr, SET_CONFIG_OPTION)).toEqual(['effort=high', 'web=true', 'mode=code', 'model=smart']);
    expect(r.stderr).toContain('acp-kit: mode code · model smart · effort high · web on');
  });

  it('--json emits the resulting config state after the session line', async () => {
    const r = await cli(['run', '--json', '--agent', AGENT, '--mode', 'architect', '--config', 'web=false', 'state'], {
      env: cliEnv(),
    });
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    const types = events.map((e) => e.type);
    expect(types.indexOf('config')).toBeGreaterThan(types.indexOf('session'));
    const config = events.find((e) => e.type === 'config')!;
    expect(config.applied).toEqual([
      { id: 'web', value: false, via: 'option' },
      { id: 'mode', value: 'architect', via: 'option' },
    ]);
    const mode = config.configOptions.find((o: { configId: string }) => o.configId === 'mode');
    expect(mode.currentValue).toBe('architect');
    // the agent's answers reach the stream as config_option_update (the full list each time)
    const updates = events.filter((e) => e.type === 'update' && e.update.sessionUpdate === 'config_option_update');
    expect(updates.at(-1)?.update.configOptions).toEqual(config.configOptions);
  });

  it('--json with legacy modes: the set mode is reported as a current_mode_update and in the config event', async () => {
    const r = await cli(['run', '--json', '--agent', AGENT, '--mode', 'code', 'state'], { env: modesOnly() });
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    const modeUpdate = events.find((e) => e.type === 'update' && e.update.sessionUpdate === 'current_mode_update');
    expect(modeUpdate?.update.currentModeId).toBe('code');
    const config = events.find((e) => e.type === 'config')!;
    expect(config.applied).toEqual([{ id: 'mode', value: 'code', via: 'modes' }]);
    expect(config.modes.currentModeId).toBe('code');
  });

  it.each([
    ['--mode', ['--mode', 'nope'], /--mode: "nope" is not a value of "mode"/, /"ask", "code", "architect"/],
    ['--model', ['--model', 'gpt-9'], /--model: "gpt-9" is not a value of "model"/, /"fast", "smart"/],
    ['--config id', ['--config', 'bogus=1'], /offers no setting "bogus"/, /"mode", "model", "effort", "web"/],
    ['--config boolean', ['--config', 'web=maybe'], /"web" is on\/off/, /true or false/],
    ['--config syntax', ['--config', 'web'], /expected <id>=<value>/, /mode=ask/],
  ])(
    'an unknown %s is a usage error (exit 2) listing the valid ones; nothing is prompted',
    async (_, args, message, valid) => {
      const r = await cli(['run', '--agent', AGENT, ...args, 'state'], { env: cliEnv() });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(valid);
      expect(r.stdout).not.toContain('mode=');
    },
  );

  it('a v1 agent with only legacy modes: --mode goes through session/set_mode', async () => {
    const r = await cli(['run', '--verbose', '--agent', AGENT, '--mode', 'code', 'state'], { env: modesOnly() });
    expect(r.code, r.stderr).toBe(0);
    expect(calls(r.stderr, SET_MODE)).toEqual(['code']);
    expect(calls(r.stderr, SET_CONFIG_OPTION)).toEqual([]);
    expect(r.stdout).toContain('mode=code');
  });

  it('a v1 agent with only legacy modes: --model is a usage error saying why (2.4.0 has no session/set_model)', async () => {
    const r = await cli(['run', '--agent', AGENT, '--model', 'smart', 'state'], { env: modesOnly() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no config option with category "model"/);
    expect(r.stderr).toMatch(/Settings of this session: "mode"/);
  });
});

describe('run: session settings of the built-in agent', () => {
  for (const protocol of ['1', '2']) {
    it(`protocol ${protocol}: --mode read-only makes the agent refuse a write`, async () => {
      const cwd = tempDir('cfg-cwd');
      const r = await cli(
        [
          'run',
          '--protocol',
          protocol,
          '--cwd',
          cwd,
          '--json',
          '--approve-all',
          '--mode',
          'read-only',
          'create x.txt containing hi',
        ],
        { env: cliEnv() },
      );
      expect(r.code, r.stderr).toBe(0);
      const events = ndjson(r.stdout);
      expect(events.find((e) => e.type === 'config')?.applied).toEqual([
        { id: 'mode', value: 'read-only', via: 'option' },
      ]);
      const said = events
        .filter((e) => e.type === 'update' && e.update.sessionUpdate === 'agent_message_chunk')
        .map((e) => e.update.content.text)
        .join('');
      expect(said).toMatch(/read-only mode/);
      expect(existsSync(join(cwd, 'x.txt'))).toBe(false);
    });
  }

  it('--model of the built-in agent still picks its backend; an unknown one is a usage error', async () => {
    const r = await cli(['run', '--model', 'gpt', 'hi'], { env: cliEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the built-in agent runs on demo, openai or anthropic/);
  });
});

// Profiles of the config file ($XDG_CONFIG_HOME/acp-kit/config.json, else ~/.config/acp-kit/config.json)
// for `run`, and `acp-kit profiles list|show`, as real processes. The config fixture agent answers
// "state" with what it holds, so each test sees the profile's agent, env, protocol and settings
// reach the agent; flags on the command line win over the profile.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, FIXTURES, ndjson, tempDir } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';

const cli = useCli();
const CONFIG_AGENT = join(FIXTURES, 'cli-config-agent.mjs');

/** An environment whose config file holds `config` (written as JSON, or as is when a string). */
function withConfig(config: unknown, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const home = tempDir('profiles-config');
  mkdirSync(join(home, 'acp-kit'));
  writeFileSync(join(home, 'acp-kit', 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return cliEnv({ XDG_CONFIG_HOME: home, ...extra });
}

const PROFILES = {
  version: 1,
  profiles: {
    // the fixture with only v1 legacy modes: chosen through the profile's agent.env
    legacy: {
      description: 'config fixture, legacy modes',
      agent: { command: process.execPath, args: [CONFIG_AGENT], env: { CLI_CONFIG_FIXTURE: 'modes' } },
      protocol: '1',
      mode: 'code',
    },
    options: {
      agent: { command: process.execPath, args: [CONFIG_AGENT] },
      model: 'smart',
      config: { effort: 'high', web: true },
    },
  },
};

describe('run --profile', () => {
  it("the profile's agent (with its env), protocol and mode reach the agent", async () => {
    const r = await cli(['run', '--profile', 'legacy', 'state'], { env: withConfig(PROFILES) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/config-fixture-agent 1\.0\.0 · protocol v1/);
    // only the legacy-modes fixture (CLI_CONFIG_FIXTURE=modes from agent.env) lists just "mode"
    expect(r.stderr).toMatch(/^acp-kit: mode code$/m);
    expect(r.stdout).toContain('mode=code model=fast');
  });

  it("the profile's model and config options; a --config flag wins for the same id", async () => {
    const r = await cli(['run', '--profile', 'options', '--config', 'effort=low', 'state'], {
      env: withConfig(PROFILES),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('mode=ask model=smart effort=low web=true');
  });

  it('flags win: --mode over the profile mode, --agent over the profile agent (env included)', async () => {
    const env = withConfig(PROFILES);
    const mode = await cli(['run', '--profile', 'legacy', '--mode', 'ask', 'state'], { env });
    expect(mode.code, mode.stderr).toBe(0);
    expect(mode.stdout).toContain('mode=ask');
    const agent = await cli(
      ['run', '--profile', 'options', '--agent', `${process.execPath} ${join(FIXTURES, 'cli-sdk-agent.mjs')}`, 'hi'],
      { env },
    );
    // the other agent offers no model option: the profile's --model is now an error naming that
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/sdk-fixture-agent/);
    expect(agent.stderr).toMatch(/offers no setting "effort"/);
  });

  it('$ACP_KIT_PROFILE selects a profile; --profile wins over it', async () => {
    const byEnv = await cli(['run', 'state'], { env: withConfig(PROFILES, { ACP_KIT_PROFILE: 'options' }) });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(byEnv.stdout).toContain('model=smart');
    const byFlag = await cli(['run', '--profile', 'legacy', 'state'], {
      env: withConfig(PROFILES, { ACP_KIT_PROFILE: 'options' }),
    });
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(byFlag.stdout).toContain('mode=code model=fast');
  });

  it("the profile's cwd and permission policy (built-in agent)", async () => {
    const cwd = tempDir('profiles-cwd');
    const config = {
      profiles: {
        writer: { cwd, permissions: 'approve-all' },
        denier: { cwd, permissions: 'deny-all' },
      },
    };
    const denied = await cli(['run', '--profile', 'denier', 'create a.txt containing one'], {
      env: withConfig(config),
    });
    expect(denied.code).toBe(8);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
    const written = await cli(['run', '--profile', 'writer', 'create a.txt containing one'], {
      env: withConfig(config),
    });
    expect(written.code, written.stderr).toBe(0);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(true);
  });

  it.each([
    [
      'a misspelt field',
      { profiles: { p: { permisions: 'approve-all' } } },
      /profiles\.p\.permisions: is not a known field/,
    ],
    [
      'an arg that is not a string',
      { profiles: { p: { agent: { command: 'x', args: [1] } } } },
      /profiles\.p\.agent\.args\[0\]: must be string/,
    ],
    [
      'an agent without command',
      { profiles: { p: { agent: { args: [] } } } },
      /profiles\.p\.agent\.command: is required/,
    ],
    [
      'a bad policy',
      { profiles: { p: { permissions: 'yes' } } },
      /profiles\.p\.permissions: must be one of "approve-all", "approve-reads", "deny-all"/,
    ],
    ['a bad protocol', { profiles: { p: { protocol: 3 } } }, /profiles\.p\.protocol: must be one of "auto", "1", "2"/],
    ['not JSON', '{ "profiles": ', /cannot read the config file .*config\.json/],
  ])('a config file with %s is a usage error naming the field', async (_, config, message) => {
    const r = await cli(['run', '--profile', 'p', 'hi'], { env: withConfig(config) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('an unknown profile lists the profiles; no config file says where it was looked for', async () => {
    const unknown = await cli(['run', '--profile', 'nope', 'hi'], { env: withConfig(PROFILES) });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no profile "nope" in .*acp-kit\/config\.json/);
    expect(unknown.stderr).toMatch(/Profiles: legacy, options\./);
    const home = tempDir('profiles-none');
    const none = await cli(['run', '--profile', 'x', 'hi'], { env: cliEnv({ XDG_CONFIG_HOME: home }) });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`there is no config file ${join(home, 'acp-kit', 'config.json')}`);
  });

  it('without a profile the config file is not read (a broken one does not break run)', async () => {
    const r = await cli(['run', 'hi'], { env: withConfig('not json') });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('acp-kit profiles', () => {
  it('list: name, agent command line, description; --json one profile line each', async () => {
    const env = withConfig(PROFILES);
    const r = await cli(['profiles', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^legacy +\\S*node\\S* \\S*cli-config-agent\\.mjs +config fixture, legacy modes$`, 'm'),
    );
    expect(r.stdout).toMatch(/^options +\S*node/m);
    const j = await cli(['profiles', 'list', '--json'], { env });
    const events = ndjson(j.stdout);
    expect(events.filter((e) => e.type === 'profile').map((e) => e.name)).toEqual(['legacy', 'options']);
    expect(events.at(-1)).toMatchObject({ type: 'result', profiles: 2, exitCode: 0 });
  });

  it('show: the profile as stored; an unknown name is exit 2', async () => {
    const env = withConfig(PROFILES);
    const r = await cli(['profiles', 'show', 'options'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(PROFILES.profiles.options);
    const bad = await cli(['profiles', 'show', 'nope'], { env });
    expect(bad.code).toBe(2);
  });

  it('without $XDG_CONFIG_HOME the file is ~/.config/acp-kit/config.json', async () => {
    const home = tempDir('profiles-home');
    mkdirSync(join(home, '.config', 'acp-kit'), { recursive: true });
    writeFileSync(join(home, '.config', 'acp-kit', 'config.json'), JSON.stringify(PROFILES));
    const r = await cli(['profiles', 'list', '--json'], { env: cliEnv({ HOME: home, XDG_CONFIG_HOME: '' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({
      profiles: 2,
      file: join(home, '.config', 'acp-kit', 'config.json'),
    });
  });
});

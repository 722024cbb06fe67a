// Issue 28: agents by name from the ACP Registry, through real `acp-kit` processes. `agents list`
// offline from the snapshot shipped in the package; `run --agent claude-acp@0.101.0` installs the
// registry's own claude-acp manifest (test/fixtures/registry, served over loopback as
// $ACP_KIT_REGISTRY) with `npm install --prefix` into the data dir, re-pinned to the
// devDependency's version whose tarball is in the npm cache, and runs it against the loopback
// Anthropic API of test/support/fake-anthropic.ts; a second run finds it installed. And the
// errors: no distribution for this platform, a missing runtime (uvx), an install that fails.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../packages/tools/src/registry/index.js';
import { ndjson } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';
import { startFakeAnthropic, type FakeAnthropic } from './support/fake-anthropic.js';
import { registryText, startRegistryServer, type RegistryServer } from './support/registry-server.js';
import { tempDir } from './support/temp.js';
import { registryNetworkEnv } from './support/registry-network.js';

const cli = useCli();
const claude = JSON.parse(
  readFileSync(new URL('./fixtures/registry/claude-acp.agent.json', import.meta.url), 'utf8'),
) as {
  id: string;
};
/** The npm cache of this machine: the install reads the devDependency's tarball from it. */
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();

const binaryOnly = {
  id: 'mac-only',
  name: 'Mac only',
  version: '1.0.0',
  description: 'a build for one platform that is not this one',
  distribution: { binary: { 'windows-aarch64': { archive: 'https://example.invalid/a.zip', cmd: './a.exe' } } },
};
const uvOnly = {
  ...binaryOnly,
  id: 'py-agent',
  distribution: { uvx: { package: 'some-py-agent@1.0.0', args: ['--acp'] } },
};
const missingNpm = {
  ...binaryOnly,
  id: 'not-cached',
  distribution: { npx: { package: '@acp-kit-test/not-in-any-cache@9.9.9' } },
};

let server: RegistryServer;
let data: string;
beforeAll(async () => {
  server = await startRegistryServer(registryText([claude, binaryOnly, uvOnly, missingNpm]));
  data = tempDir('acp-registry-data-');
});
afterAll(async () => {
  await server.close();
});

/** The environment of every run: nothing of the machine's Claude set-up; off loopback only npm, to the registry (its cache first). */
function envFor(fake?: FakeAnthropic): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: tempDir('acp-registry-home-'),
    TMPDIR: tempDir('acp-registry-tmp-'),
    ACP_KIT_DATA_DIR: data,
    ACP_KIT_REGISTRY: server.url,
    npm_config_cache: NPM_CACHE,
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    ...registryNetworkEnv(),
    NO_COLOR: '1',
    ...(fake
      ? {
          ANTHROPIC_BASE_URL: fake.url,
          ANTHROPIC_API_KEY: 'dummy-key-for-loopback',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
        }
      : {}),
  };
}

describe('acp-kit agents', () => {
  it('list works offline from the snapshot shipped in the package (text and --json)', async () => {
    const snap = readSnapshot();
    const env = { ...envFor(), ACP_KIT_OFFLINE: '1' };
    delete env.ACP_KIT_REGISTRY;
    const text = await cli(['agents', 'list'], { env });
    expect(text.code, text.stderr).toBe(0);
    const ids = text.stdout
      .split('\n')
      .slice(1, -2)
      .map((l) => l.split(/\s+/)[0]);
    expect(ids).toEqual(snap.agents.map((a) => a.id));
    expect(text.stdout).toMatch(
      /\d+ agents from snapshot of agentclientprotocol\/registry@3de1678346d1 \(2026-02-07\)\n$/,
    );
    const json = ndjson((await cli(['agents', 'list', '--json'], { env })).stdout);
    expect(json.filter((e) => e.type === 'agent').map((e) => e.id)).toEqual(snap.agents.map((a) => a.id));
    expect(json.at(-1)).toMatchObject({ type: 'result', agents: snap.agents.length, source: { kind: 'snapshot' } });
  });

  it('a corrupt --registry is exit 2 naming it', async () => {
    const dir = tempDir('acp-registry-bad-');
    const file = join(dir, 'registry.json');
    writeFileSync(file, '{"agents": [');
    const r = await cli(['agents', 'list', '--registry', file], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`registry at ${file} is not JSON`);
  });
});

describe('run --agent <registry id>', () => {
  it('installs claude-acp@0.101.0 from the registry manifest with npm, runs a turn on the loopback model; the next command reuses the install', async () => {
    const fake = await startFakeAnthropic([]);
    try {
      const cwd = realpathSync(tempDir('acp-registry-cwd-'));
      const env = envFor(fake);
      const first = await cli(['run', '--json', '--approve-all', '--agent', 'claude-acp@0.101.0', 'Say hi'], {
        cwd,
        env,
      });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/installed claude-acp@0\.101\.0 \(npx\) in .*agents\/claude-acp\/0\.101\.0-npx/);
      const events = ndjson(first.stdout);
      expect(events[0]).toMatchObject({
        type: 'connection',
        agentInfo: { name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' },
      });
      expect(fake.requests.length).toBeGreaterThan(0);
      expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
      const bin = join(data, 'agents', 'claude-acp', '0.101.0-npx', 'node_modules', '.bin', 'claude-agent-acp');
      expect(realpathSync(bin)).toContain(join('@agentclientprotocol', 'claude-agent-acp'));
      // the next command naming it starts the installed agent: `sessions list` resolves --agent as
      // `run` does (one resolver for every command), without a second Claude Code session and turn
      // (about 1.5 CPU-s) that the first run proved already
      const second = await cli(['sessions', 'list', '--json', '--agent', 'claude-acp@0.101.0'], { cwd, env });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toContain('installed claude-acp');
      // the installed agent answered: it lists the session of the first run
      const listed = ndjson(second.stdout).find((e) => e.type === 'sessions')?.sessions as Array<{ sessionId: string }>;
      expect(listed?.map((x) => x.sessionId)).toContain(events.find((e) => e.type === 'session')?.sessionId);
    } finally {
      await fake.close();
    }
  }, 240_000);

  it('an agent with no build for this platform: exit 2, the platforms it has', async () => {
    const r = await cli(['run', '--agent', 'mac-only', 'hi'], { env: envFor() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /mac-only has no distribution for this platform \([a-z]+-[a-z0-9_]+\); it has: windows-aarch64/,
    );
  });

  it('a uvx agent without uv on PATH: exit 9 (cannot start), how to get uv', async () => {
    const r = await cli(['run', '--agent', 'py-agent', 'hi'], {
      env: { ...envFor(), PATH: dirname(process.execPath) },
    });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('py-agent is a Python package run with uvx, and uvx (uv) is not installed');
    expect(r.stderr).toContain('https://docs.astral.sh/uv/');
    expect(r.stderr).toContain('by hand it is: uvx some-py-agent==1.0.0 --acp');
  });

  it('an install that fails (npm offline, package not cached): exit 9 with the command to run by hand', async () => {
    const r = await cli(['run', '--agent', 'not-cached', 'hi'], { env: { ...envFor(), npm_config_offline: 'true' } });
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(
      /installing not-cached failed: npm install @acp-kit-test\/not-in-any-cache@9\.9\.9 exited \d+/,
    );
    expect(r.stderr).toMatch(
      /Run it by hand to see why: npm install --prefix \S+agents\/not-cached\/9\.9\.9-npx @acp-kit-test\/not-in-any-cache@9\.9\.9/,
    );
  });
});

/**
 * The ACP Registry as a data source: the official URL over loopback HTTP with its ETag cache (200
 * then 304), what happens with corrupt JSON and with a manifest failing the registry's own schema,
 * the fallback order down to the shipped snapshot, and the platform choice of a distribution.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findAgent,
  loadRegistry,
  parseAgentSpec,
  planInstall,
  readSnapshot,
  RegistryError,
  type RegistryAgent,
} from '../src/registry/index.js';
import { startRegistryServer, registryText, type RegistryServer } from '../../../test/support/registry-server.js';
import { tempDir } from '../../../test/support/temp.js';

const claude = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/registry/claude-acp.agent.json', import.meta.url), 'utf8'),
) as RegistryAgent;

const binaryOnly: RegistryAgent = {
  id: 'bin-agent',
  name: 'Binary agent',
  version: '1.2.3',
  description: 'only a macOS build',
  distribution: { binary: { 'darwin-aarch64': { archive: 'https://example.invalid/a.tar.gz', cmd: './a' } } },
};

const servers: RegistryServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
const serve = async (body: string) => {
  const s = await startRegistryServer(body);
  servers.push(s);
  return s;
};

describe('official registry URL with its ETag cache', () => {
  it('downloads once, then revalidates with If-None-Match and reads the cached copy on 304', async () => {
    const server = await serve(registryText([claude]));
    const env = { ACP_KIT_DATA_DIR: tempDir('acp-registry-') };
    const first = await loadRegistry({ env, officialUrl: server.url });
    expect(first.source.kind).toBe('official');
    expect(first.agents.map((a) => a.id)).toEqual(['claude-acp']);
    const second = await loadRegistry({ env, officialUrl: server.url });
    expect(second.source.kind).toBe('cache');
    expect(second.agents.map((a) => a.id)).toEqual(['claude-acp']);
    expect(server.requests.map((r) => r.status)).toEqual([200, 304]);
    expect(server.requests[1]?.ifNoneMatch).toMatch(/^"[0-9a-f]{16}"$/);
    // a changed registry has a new ETag: a 200 again, and the new body replaces the cached one
    server.setBody(registryText([claude, { ...binaryOnly, id: 'second' }]));
    const third = await loadRegistry({ env, officialUrl: server.url });
    expect(third.agents.map((a) => a.id)).toEqual(['claude-acp', 'second']);
    expect(server.requests.map((r) => r.status)).toEqual([200, 304, 200]);
  });

  it('corrupt JSON from the official URL keeps the good cached copy and says why', async () => {
    const server = await serve(registryText([claude]));
    const env = { ACP_KIT_DATA_DIR: tempDir('acp-registry-') };
    await loadRegistry({ env, officialUrl: server.url });
    server.setBody('{"version": "1.0.0", "agents": [');
    const r = await loadRegistry({ env, officialUrl: server.url });
    expect(r.source.kind).toBe('cache');
    expect(r.agents.map((a) => a.id)).toEqual(['claude-acp']);
    expect(r.warnings.join('\n')).toMatch(
      /official registry unavailable \(registry at http:\/\/127\.0\.0\.1:\d+\/registry\.json is not JSON/,
    );
    // and the cached copy was not overwritten by the broken answer
    const again = await loadRegistry({ env: { ...env, ACP_KIT_OFFLINE: '1' } });
    expect(again.agents.map((a) => a.id)).toEqual(['claude-acp']);
  });

  it('an unreachable official URL and no cache falls back to the shipped snapshot', async () => {
    const server = await serve('');
    const url = server.url;
    await server.close();
    servers.length = 0;
    const r = await loadRegistry({ env: { ACP_KIT_DATA_DIR: tempDir('acp-registry-') }, officialUrl: url });
    expect(r.source.kind).toBe('snapshot');
    expect(r.source.date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.agents.length).toBe(readSnapshot().agents.length);
    expect(r.warnings[0]).toMatch(/^official registry unavailable/);
  });
});

describe('explicit sources and validation', () => {
  it('--registry wins over $ACP_KIT_REGISTRY, which wins over the official URL', async () => {
    const official = await serve(registryText([claude]));
    const dir = tempDir('acp-registry-');
    const file = join(dir, 'registry.json');
    writeFileSync(file, registryText([binaryOnly]));
    const envFile = join(dir, 'env.json');
    writeFileSync(envFile, registryText([{ ...binaryOnly, id: 'from-env' }]));
    const env = { ACP_KIT_DATA_DIR: dir, ACP_KIT_REGISTRY: envFile };
    const byFlag = await loadRegistry({ registry: file, env, officialUrl: official.url });
    expect([byFlag.source.kind, byFlag.agents[0]?.id]).toEqual(['flag', 'bin-agent']);
    const byEnv = await loadRegistry({ env, officialUrl: official.url });
    expect([byEnv.source.kind, byEnv.agents[0]?.id]).toEqual(['env', 'from-env']);
    expect(official.requests).toEqual([]);
  });

  it('corrupt JSON at --registry is an error naming the source (no silent fallback)', async () => {
    const server = await serve('not json at all');
    await expect(loadRegistry({ registry: server.url })).rejects.toThrow(/registry at http:.* is not JSON/);
  });

  it('a manifest failing agent.schema.json is left out with the schema error; the others stay', async () => {
    const bad = { ...claude, id: 'Bad_Id', distribution: { npx: { package: '' } } };
    const server = await serve(registryText([claude, bad, { ...binaryOnly, distribution: {} }]));
    const r = await loadRegistry({ registry: server.url });
    expect(r.agents.map((a) => a.id)).toEqual(['claude-acp']);
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(
      /^agent Bad_Id left out: its manifest fails agent\.schema\.json: \/id must match pattern/,
    );
    expect(r.warnings[1]).toMatch(/^agent bin-agent left out: .*\/distribution must NOT have fewer than 1 properties/);
  });

  it('a binary distribution for an unknown platform key fails the schema', async () => {
    const odd = {
      ...binaryOnly,
      distribution: { binary: { 'plan9-mips': { archive: 'https://x.invalid/a', cmd: 'a' } } },
    };
    const r = await loadRegistry({ registry: await serve(registryText([odd])).then((s) => s.url) });
    expect(r.agents).toEqual([]);
    expect(r.warnings[0]).toMatch(/property name must be valid|must be equal to one of the allowed values/);
  });

  it('the shipped snapshot passes the schema whole', () => {
    const snap = readSnapshot();
    expect(snap.warnings).toEqual([]);
    expect(snap.agents.length).toBeGreaterThanOrEqual(10);
  });
});

describe('choosing the distribution', () => {
  it('an agent with no build for this platform is a clear error listing what it has', () => {
    expect(() => planInstall(binaryOnly, undefined, 'linux-x86_64')).toThrow(
      /bin-agent has no distribution for this platform \(linux-x86_64\); it has: darwin-aarch64/,
    );
    expect(planInstall(binaryOnly, undefined, 'darwin-aarch64')).toMatchObject({ kind: 'binary', version: '1.2.3' });
  });

  it('<id>@<version> replaces the npm package version; a binary refuses another version', () => {
    const plan = planInstall(claude, parseAgentSpec('claude-acp@0.101.0')?.version, 'linux-x86_64');
    expect(plan).toMatchObject({
      kind: 'npx',
      spec: '@agentclientprotocol/claude-agent-acp@0.101.0',
      version: '0.101.0',
    });
    expect(() => planInstall(binaryOnly, '9.9.9', 'darwin-aarch64')).toThrow(RegistryError);
  });

  it('an unknown id suggests the ids that look alike', () => {
    expect(() => findAgent([claude], { id: 'claude' })).toThrow(/no agent "claude" in the registry/);
    try {
      findAgent([claude], { id: 'claude' });
    } catch (e) {
      expect((e as RegistryError).hint).toBe('Did you mean claude-acp?');
    }
    expect(parseAgentSpec('node ./agent.js')).toBeUndefined();
    expect(parseAgentSpec('./agent')).toBeUndefined();
  });
});

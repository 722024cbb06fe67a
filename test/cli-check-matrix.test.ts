// Issue 28 item 3: `acp-kit check matrix` over registry agents, real processes. The registry (over
// loopback) has REAL registry agents by their registry manifests
// (test/fixtures/registry/matrix-registry.json): claude-code-acp (0.16.2), a devDependency, so npm
// installs it from its cache (no network: tests use only loopback), and claude-acp (run as
// 0.101.0), found installed already in the data dir (test/support/seed-install.ts links the
// devDependency there: a second npm install of it, about 8 CPU-s, would prove nothing the npm
// install of claude-code-acp here and `run --agent claude-acp@0.101.0` in
// test/cli-registry-agents.test.ts do not), against the loopback Anthropic API. The third real agent of docs/registry.md's matrix,
// gemini, is not in the npm cache of a fresh clone: it is left to the matrix made by hand. Plus an
// agent that needs a login as a raw-binary distribution served over
// loopback with its sha256, and one with no build for this platform. The three formats are written;
// the Markdown has every column of the registry's own daily matrix (read from a copy of one of its
// snapshots) plus the conformance columns.
// Cost: the checker is limited with --only to two requirement IDs, each judged by one case: a MUST
// only the handshake case judges (it runs anyway, as the gate of each version) and the SHOULD both
// Claude adapters miss with this fake model (the MCP case). So a check is two agent processes per
// version: every other case starts its own Claude Code session again (about 1.5 CPU-s each); a full
// check of each Claude adapter takes 70-80 s (docs/registry.md has that matrix, made by hand), and
// what this test proves is the matrix (install, probe, v2 offer, checks per version, verdicts,
// failing IDs, formats), not the adapters' conformance (test/real-claude-*.test.ts check those).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { platformKey } from '../packages/tools/src/registry/index.js';
import { useCli } from './support/cli.js';
import { startFakeAnthropic, type FakeAnthropic } from './support/fake-anthropic.js';
import { registryText, startRegistryServer, type RegistryServer } from './support/registry-server.js';
import { seedNpmInstall } from './support/seed-install.js';
import { tempDir } from './support/temp.js';
import { registryNetworkEnv } from './support/registry-network.js';

const cli = useCli();
const fixture = (name: string) => new URL(`./fixtures/registry/${name}`, import.meta.url);
/** The registry's own manifests of claude-acp, claude-code-acp and gemini (gemini unused here: not in the npm cache). */
const realAgents = (JSON.parse(readFileSync(fixture('matrix-registry.json'), 'utf8')) as { agents: unknown[] }).agents;
const ONLY = 'ACP-ALL-INIT-06,ACP-ALL-SESS-08';
const AUTH_AGENT = readFileSync(fixture('auth-agent.mjs'));
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();

/** The registry's matrix columns: its text table's header words and the methods of its probe summary. */
function registryColumns(): string[] {
  const md = readFileSync(fixture('protocol-matrix-2026-08-20.md'), 'utf8');
  const header = md.split('\n').find((l) => l.startsWith('Agent '));
  const methods = [...md.matchAll(/^\| `([a-z_/]+)` \|/gm)].map((m) => m[1] ?? '');
  return [...(header?.trim().split(/\s+/) ?? []), ...methods];
}

let registry: RegistryServer;
let fake: FakeAnthropic;
let binaries: ReturnType<typeof createServer>;
beforeAll(async () => {
  binaries = createServer((_req, res) => res.end(AUTH_AGENT));
  await new Promise<void>((r) => binaries.listen(0, '127.0.0.1', r));
  const port = (binaries.address() as AddressInfo).port;
  const here = platformKey();
  if (!here) throw new Error('this test needs a platform the registry has binaries for');
  const authAgent = {
    id: 'auth-agent',
    name: 'Needs a login',
    version: '3.2.1',
    description: 'session/new answers auth required',
    distribution: {
      binary: {
        [here]: {
          archive: `http://127.0.0.1:${port}/auth-agent`,
          sha256: createHash('sha256').update(AUTH_AGENT).digest('hex'),
          cmd: './auth-agent',
        },
      },
    },
  };
  const elsewhere = {
    ...authAgent,
    id: 'elsewhere',
    distribution: { binary: { 'windows-aarch64': { archive: 'https://x.invalid/a.zip', cmd: 'a.exe' } } },
  };
  registry = await startRegistryServer(registryText([...realAgents, authAgent, elsewhere]));
  fake = await startFakeAnthropic([
    { names: ['Bash'], input: { command: 'sleep 3', description: 'wait' }, when: 'run sleep 3' },
    { names: ['Bash'], input: { command: 'echo checked', description: 'echo' }, when: 'run echo checked' },
  ]);
});
afterAll(async () => {
  await registry.close();
  await fake.close();
  binaries.closeAllConnections();
  await new Promise((r) => binaries.close(r));
});

it('check matrix over two real npm agents and two served over loopback: three formats, the registry columns, conformant / auth required / unavailable', async () => {
  const out = realpathSync(tempDir('acp-matrix-out-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: tempDir('acp-matrix-home-'),
    TMPDIR: tempDir('acp-matrix-tmp-'),
    ACP_KIT_DATA_DIR: tempDir('acp-matrix-data-'),
    npm_config_cache: NPM_CACHE,
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    ...registryNetworkEnv(),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'dummy-key-for-loopback',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    NO_COLOR: '1',
  };
  seedNpmInstall(realAgents, 'claude-acp@0.101.0', env);
  const files = ['m.md', 'm.json', 'm.html'].map((f) => join(out, f));
  const r = await cli(
    [
      'check',
      'matrix',
      'claude-acp@0.101.0',
      'claude-code-acp@0.16.2',
      'auth-agent',
      'elsewhere',
      '--registry',
      registry.url,
      '--prompt',
      'run echo checked',
      '--cancel-prompt',
      'run sleep 3',
      '--short-prompt',
      'hello',
      '--only',
      ONLY,
      '--out',
      ...files,
    ],
    { env, cwd: out },
  );
  expect(r.code, r.stderr).toBe(0);
  // npm ran for the one not installed yet, not for the one found installed
  expect(r.stderr).toMatch(
    /npm install --prefix \S+ --no-audit --no-fund --loglevel=error @zed-industries\/claude-code-acp@0\.16\.2/,
  );
  expect(r.stderr).not.toMatch(/npm install .*claude-agent-acp/);
  const [md, json, page] = files.map((f) => readFileSync(f, 'utf8'));
  const report = JSON.parse(json ?? '') as { rows: Array<Record<string, any>>; only?: string[] };
  const row = (id: string) => report.rows.find((x) => x.id === id);
  expect(report.rows.map((x) => x.id)).toEqual(['claude-acp', 'claude-code-acp', 'auth-agent', 'elsewhere']);
  expect(report).toMatchObject({ only: ONLY.split(',') });

  expect(row('claude-acp')).toMatchObject({
    distribution: 'npx',
    installedVersion: '0.101.0',
    initialize: { status: 'success' },
    protocolVersion: 1,
    agentInfoVersion: '0.101.0',
    negotiatedProtocol: 2,
    sessionNew: { status: 'success' },
    verdict: 'conformant',
  });
  expect(Object.keys(row('claude-acp')?.methodProbes ?? {})).toEqual([
    'session/list',
    'session/fork',
    'session/resume',
    'session/stop',
    'session/set_model',
  ]);
  expect(row('claude-acp')?.checks.map((c: { protocol: number; verdict: string }) => [c.protocol, c.verdict])).toEqual([
    [1, 'conformant'],
    [2, 'conformant'],
  ]);
  // the one SHOULD the real-claude test knows it misses with this fake model
  expect(row('claude-acp')?.failingIds).toEqual(['v1 ACP-ALL-SESS-08', 'v2 ACP-ALL-SESS-08']);

  expect(row('claude-code-acp')).toMatchObject({
    distribution: 'npx',
    registryVersion: '0.16.0',
    installedVersion: '0.16.2',
    initialize: { status: 'success' },
    authMethods: ['claude-login'],
    negotiatedProtocol: 1,
    sessionNew: { status: 'success' },
  });
  // it speaks v1 only: one check
  expect(row('claude-code-acp')?.checks.map((c: { protocol: number }) => c.protocol)).toEqual([1]);
  expect(row('claude-code-acp')?.failingIds).toContain('v1 ACP-ALL-SESS-08');
  expect(row('auth-agent')).toMatchObject({
    distribution: 'binary',
    verdict: 'auth required',
    verdictDetail: 'agent-login',
    authMethods: ['agent-login'],
    sessionNew: { status: 'auth_required', code: -32000 },
    capabilities: { loadSession: true, sessionList: false },
    methodProbes: { 'session/list': { status: 'method_not_found', code: -32601 } },
  });
  expect(row('elsewhere')).toMatchObject({ verdict: 'unavailable', distribution: 'none' });

  const headerLine = md?.split('\n').find((l) => l.startsWith('| Agent |')) ?? '';
  const header = headerLine.split('|').map((c) => c.trim());
  for (const col of registryColumns()) expect(header, `column ${col}`).toContain(col);
  for (const col of ['Installed', 'Negotiated (v2 offered)', 'Verdict', 'Failing IDs', 'Time (s)'])
    expect(header).toContain(col);
  expect(md).toContain(`checker limited to ${ONLY.split(',').join(', ')}`);
  expect(md).toMatch(/^\| claude-acp \| 0\.85\.1 \| npx \| ok \| /m);
  expect(md).toMatch(/^\| auth-agent \| 3\.2\.1 \| binary \| ok \| agent-login \| loadSession \| method_not_found /m);

  expect(page).toMatch(/^<!doctype html>/);
  expect(page).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  expect(page?.match(/<tr class=/g)).toHaveLength(4);
  expect(page).toContain('<tr class="auth-required">');
}, 300_000);

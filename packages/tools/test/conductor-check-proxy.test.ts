// checkProxy (acp-kit check proxy) against real component processes over real pipes: the system-note example
// (written with runComponent) and a raw-JSON-RPC component that does not forward what it does not know.
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { checkProxy } from '../src/conductor/index.js';
import { tempDir } from '../../../test/support/temp.js';

const NOTE = fileURLToPath(new URL('../../../examples/system-note-component.mjs', import.meta.url));
const PROBE = fileURLToPath(new URL('../../../test/fixtures/conduct-probe-component.mjs', import.meta.url));

const example = (name: string) => fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url));
const BIN = resolve('bin/acp-kit.js');

const verdicts = (r: Awaited<ReturnType<typeof checkProxy>>): string[] =>
  r.results.map((c) => `v${c.version} ${c.id} ${c.verdict}`);

it('a runComponent component forwards initialize, keeps the version and the MCP-over-ACP capability the conductor advertises, forwards unknown methods with _meta, delivers upward', async () => {
  const r = await checkProxy({ command: process.execPath, args: [NOTE] });
  expect(verdicts(r)).toEqual(
    [1, 2].flatMap((v) => [
      `v${v} proxy/initialize-forwards pass`,
      `v${v} proxy/initialize-version pass`,
      `v${v} proxy/initialize-mcp-acp pass`,
      `v${v} proxy/forwards-unknown pass`,
      `v${v} proxy/preserves-meta pass`,
      `v${v} proxy/delivers-upward pass`,
    ]),
  );
  expect(r.conformant).toBe(true);
  // the checker plays the conductor: it sends the component 'proxy/initialize' and judges what the component
  // sends and delivers through 'proxy/successor' envelopes, so both methods are cases of their own
  for (const method of ['proxy/initialize', 'proxy/successor'])
    expect(r.results.filter((c) => c.id.startsWith(method) || c.source.includes(method)).length).toBeGreaterThan(0);
}, 60_000);

it('a component that answers what it does not know itself (-32601) fails the forwarding cases', async () => {
  const r = await checkProxy({ command: process.execPath, args: [PROBE] }, { timeoutMs: 5000 });
  const byId = new Map(r.results.filter((c) => c.version === 1).map((c) => [c.id, c]));
  expect(byId.get('proxy/initialize-forwards')?.verdict).toBe('pass');
  expect(byId.get('proxy/forwards-unknown')?.verdict).toBe('fail');
  expect(byId.get('proxy/preserves-meta')).toMatchObject({ verdict: 'fail', detail: 'nothing forwarded' });
}, 60_000);

it('a component that drops the capabilities from its initialize answer fails proxy/initialize-mcp-acp (a MUST) on v1 and v2', async () => {
  const r = await checkProxy(
    { command: process.execPath, args: [PROBE], env: { ...process.env, PROBE_DROP_CAPS: '1' } },
    { timeoutMs: 5000 },
  );
  const mcp = r.results.filter((c) => c.id === 'proxy/initialize-mcp-acp');
  expect(mcp.map((c) => `v${c.version} ${c.verdict}`)).toEqual(['v1 fail', 'v2 fail']);
  expect(mcp[1]?.detail).toMatch(/capabilities\.session\.mcp\.acp/);
  expect(r.conformant).toBe(false);
}, 60_000);

// acp-kit's own components: the examples and `record` / `validate` of the CLI (dist) run as components
it.each([
  ['examples/redact-secrets-component.mjs', [example('redact-secrets-component.mjs')]],
  ['examples/mcp-tool-component.mjs', [example('mcp-tool-component.mjs')]],
  ['acp-kit record', [BIN, 'record', '--out', join(tempDir('check-proxy-record'), 'c.ndjson')]],
  ['acp-kit validate', [BIN, 'validate']],
])(
  '%s passes every case of check proxy on v1 and v2',
  async (_name, args) => {
    const r = await checkProxy({ command: process.execPath, args });
    expect(r.results.filter((c) => c.verdict !== 'pass')).toEqual([]);
    expect(r.results).toHaveLength(12);
    expect(r.conformant).toBe(true);
  },
  60_000,
);

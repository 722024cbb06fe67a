// checkProxy (acp-kit check proxy) against real component processes over real pipes: the system-note example
// (written with runComponent) and a raw-JSON-RPC component that does not forward what it does not know.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { checkProxy } from '../src/conductor/index.js';

const NOTE = fileURLToPath(new URL('../../../examples/system-note-component.mjs', import.meta.url));
const PROBE = fileURLToPath(new URL('../../../test/fixtures/conduct-probe-component.mjs', import.meta.url));

const verdicts = (r: Awaited<ReturnType<typeof checkProxy>>): string[] =>
  r.results.map((c) => `v${c.version} ${c.id} ${c.verdict}`);

it('a runComponent component forwards initialize, keeps the version, forwards unknown methods with _meta, delivers upward; it does not advertise MCP over ACP', async () => {
  const r = await checkProxy({ command: process.execPath, args: [NOTE] });
  expect(verdicts(r)).toEqual(
    [1, 2].flatMap((v) => [
      `v${v} proxy/initialize-forwards pass`,
      `v${v} proxy/initialize-version pass`,
      // the MCP-over-ACP capability is for the MCP injector component (docs/conductor.md)
      `v${v} proxy/initialize-mcp-acp fail`,
      `v${v} proxy/forwards-unknown pass`,
      `v${v} proxy/preserves-meta pass`,
      `v${v} proxy/delivers-upward pass`,
    ]),
  );
  expect(r.conformant).toBe(false);
}, 60_000);

it('a component that answers what it does not know itself (-32601) fails the forwarding cases', async () => {
  const r = await checkProxy({ command: process.execPath, args: [PROBE] }, { timeoutMs: 5000 });
  const byId = new Map(r.results.filter((c) => c.version === 1).map((c) => [c.id, c]));
  expect(byId.get('proxy/initialize-forwards')?.verdict).toBe('pass');
  expect(byId.get('proxy/forwards-unknown')?.verdict).toBe('fail');
  expect(byId.get('proxy/preserves-meta')).toMatchObject({ verdict: 'fail', detail: 'nothing forwarded' });
}, 60_000);

/**
 * The checker's MCP case (issue 26 item 5) on real processes: `acp-kit agent` with the demo model
 * connects the checker's stdio MCP server and calls its tool with the nonce (v1 and v2), so both
 * requirements pass and the report names what it saw. The fixture agents that drop mcpServers or
 * never call the tool are calibrated in packages/tools/test/checker-matrix.test.ts.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_CASES } from '../src/checker/cases/index.js';
import { runChecks } from '../src/checker/runner.js';
import { McpProbe } from '../src/checker/mcp-probe.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/checker/agent.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function checkMcp(args: string[], env: Record<string, string>, protocols: Array<1 | 2>) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-checker-mcp-')));
  dirs.push(cwd);
  return runChecks(
    {
      command: process.execPath,
      args,
      cwd,
      env: { ACP_KIT_DATA_DIR: cwd, FIXTURE_STORE: cwd, ...env },
      timeoutMs: 15_000,
      prompt: 'go',
      clientVersion: 'test',
    },
    { protocols, concurrency: 2, cases: ALL_CASES.filter((c) => c.name === 'mcp/client-server') },
  );
}

describe('checker: mcp/client-server', () => {
  it('acp-kit agent (demo model) connects the MCP server and calls its tool, v1 and v2', async () => {
    const run = await checkMcp([BIN, 'agent'], { ACP_KIT_MODEL: 'demo' }, [1, 2]);
    const statuses = run.requirements.map((r) => `v${r.protocol} ${r.id} ${r.status}`).sort();
    expect(statuses).toEqual(
      expect.arrayContaining(['v1 ACP-V1-SESS-01 pass', 'v1 ACP-ALL-SESS-08 pass', 'v2 ACP-ALL-SESS-08 pass']),
    );
    expect(run.cases.map((c) => `v${c.protocol} ${c.status}`).sort()).toEqual(['v1 ran', 'v2 ran']);
    expect(run.conformant).toBe(true);
  }, 60_000);

  it('an agent process that drops mcpServers fails ACP-V1-SESS-01 in the mcp/client-server case', async () => {
    const run = await checkMcp([FIXTURE], { BREAK: 'mcp-ignored' }, [1]);
    const fail = run.requirements.find((r) => r.id === 'ACP-V1-SESS-01');
    expect(fail?.status).toBe('fail');
    expect(fail?.failures.map((f) => `${f.case}: ${f.message}`)).toEqual([
      'mcp/client-server: the agent never started the stdio MCP server passed in session/new (mcpServers dropped)',
    ]);
    expect(run.conformant).toBe(false);
  }, 60_000);

  it('the probe server logs initialize and the nonce of tools/call when driven by hand', async () => {
    // the probe on its own, over a real pipe: what the case's verdict reads
    const { spawn } = await import('node:child_process');
    const probe = new McpProbe();
    try {
      const cfg = probe.config(1);
      const args = Array.isArray(cfg.args) ? cfg.args.map(String) : [];
      const env = { ...process.env, ACP_KIT_CHECK_MCP_LOG: String(at(cfg, 'env')) };
      const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
      const answers: string[] = [];
      const done = new Promise<void>((resolve) =>
        child.stdout.on('data', (d: Buffer) => {
          answers.push(...String(d).trim().split('\n'));
          if (answers.length >= 2) resolve();
        }),
      );
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`);
      const call = { name: 'acp_kit_check_echo', arguments: { nonce: probe.nonce } };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call })}\n`);
      await done;
      child.stdin.end();
      await new Promise((resolve) => child.on('exit', resolve));
      const seen = probe.read();
      expect(seen.methods).toEqual(['initialize', 'tools/call']);
      expect(probe.calledWithNonce(seen)).toBe(true);
      expect(seen.pid).toBe(child.pid);
    } finally {
      probe.dispose();
    }
  });
});

describe('checker: the probe server is never left behind', () => {
  it('dispose ends a probe server the agent left running (stdin still open) and removes its log', async () => {
    const { spawn } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const probe = new McpProbe();
    const cfg = probe.config(2);
    const log = String(at(cfg, 'env'));
    const args = Array.isArray(cfg.args) ? cfg.args.map(String) : [];
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ACP_KIT_CHECK_MCP_LOG: log },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    // a round trip proves it runs and has logged its pid
    const answered = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await answered;
    expect(probe.read().pid).toBe(child.pid);
    probe.dispose();
    expect(await exited).toBe('SIGKILL');
    expect(existsSync(log)).toBe(false);
  });
});

function at(cfg: Record<string, unknown>, key: string): unknown {
  const list = cfg[key];
  return Array.isArray(list) ? (list[0] as { value?: unknown } | undefined)?.value : undefined;
}

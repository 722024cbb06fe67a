/**
 * MCP connection details of the coding agent, in process (the agent runtime over in-memory pipes,
 * real MCP server processes): the v1 fallback when the client has no notices (ACP-V1-NOTICE-01),
 * the connect time limit, tool naming, and the MCP -> ACP result mapping.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../../../test/support/temp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodingAgent, createDemoModel } from '../src/coding-agent.js';
import { McpConnections, mcpToolName, mcpToolOutcome, uniqueToolName } from '../src/mcp/index.js';
import { startHarness, type Harness } from '../../../test/fixtures/coding-harness.js';
import { alive, waitUntil } from '../../../test/support/process.js';

const SERVER = resolve('test/fixtures/mcp-echo-server.mjs');
// no MCP SDK inside (cheaper to start): for the test about a server process going away
const RAW_SERVER = resolve('test/fixtures/mcp-raw-echo-server.mjs');
const harnesses: Harness[] = [];
const pids: number[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  for (const p of pids) if (alive(p)) process.kill(p, 'SIGKILL');
});

const tmp = (p: string) => tempDir(p);

async function harness(version: 1 | 2, logs: string[], connectTimeoutMs?: number) {
  const agent = createCodingAgent({
    model: createDemoModel({ delayMs: 0 }),
    mcp: { log: (l) => logs.push(l), ...(connectTimeoutMs ? { connectTimeoutMs } : {}) },
  });
  // v1 client capabilities without `session.notices`
  const h = await startHarness({ version, agent, cwd: tmp('coding-mcp-h-'), clientCapabilities: {} });
  harnesses.push(h);
  return h;
}

describe('coding agent MCP sessions (in process)', () => {
  it('v1 without notices: a failed server is reported as an agent message after the session/new response', async () => {
    const logs: string[] = [];
    const h = await harness(1, logs);
    const from = h.updates.length;
    // v1 wire shape: stdio servers carry no `type`
    const res = (await h.peer.request('session/new', {
      cwd: tmp('coding-mcp-h-'),
      mcpServers: [{ name: 'ghost', command: '/nonexistent/mcp-binary', args: [], env: [] }],
    })) as { sessionId: string };
    const msg = await h.waitFor(
      (u) => u.sessionUpdate === 'agent_message_chunk' && /ghost/.test(u.content?.text ?? ''),
      from,
      5000,
    );
    expect(msg.content.text).toMatch(/MCP server "ghost" \(stdio\) could not be started: .*ENOENT/);
    expect(h.updates.slice(from).some((u) => u.sessionUpdate === 'notice')).toBe(false);
    expect(res.sessionId).toMatch(/^sess_/);
    expect(logs.join('\n')).toMatch(/MCP server "ghost" \(stdio\) failed to start/);
    expect(h.tap.failures).toEqual([]);
  });

  it('a server that never answers is given up after the connect time limit and its process is ended', async () => {
    const logs: string[] = [];
    const h = await harness(2, logs, 400);
    const pidFile = join(tmp('coding-mcp-pid-'), 'pid');
    const from = h.updates.length;
    const t0 = Date.now();
    await h.peer.request('session/new', {
      cwd: tmp('coding-mcp-h-'),
      mcpServers: [
        {
          type: 'stdio',
          name: 'mute',
          command: process.execPath,
          // never speaks MCP and ignores stdin EOF: only a kill ends it
          args: [
            '-e',
            `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1e9)`,
          ],
          env: [],
        },
      ],
    });
    expect(Date.now() - t0).toBeLessThan(3000);
    const notice = await h.waitFor((u) => u.sessionUpdate === 'notice', from, 5000);
    expect(notice).toMatchObject({ severity: 'warning', title: 'MCP server "mute" is not available' });
    expect(notice.description).toMatch(/no answer within 400 ms/);
    expect(h.tap.failures).toEqual([]);
    await waitUntil(() => existsSync(pidFile), 3000, 'the pid file exists');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    // stdin EOF, 2 s grace, then SIGTERM (the MCP SDK's close sequence)
    await waitUntil(() => !alive(pid), 8000, `the mute server ${pid} is gone`);
  });

  it('tool names are mcp__<server>__<tool>, sanitized, at most 64 characters, unique across servers', async () => {
    expect(mcpToolName('my server', 'do.thing/now')).toBe('mcp__my_server__do_thing_now');
    const long = mcpToolName('s'.repeat(40), 't'.repeat(40));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__s+__t+$/);
    expect(uniqueToolName('mcp__a__b', new Set(['mcp__a__b']))).toBe('mcp__a__b_2');
    expect(uniqueToolName(long, new Set([long]))).toHaveLength(64);

    // two real servers whose names sanitize to the same thing
    const conns = await McpConnections.open(
      [
        { type: 'stdio', name: 'a b', command: process.execPath, args: [SERVER], env: [] },
        { type: 'stdio', name: 'a_b', command: process.execPath, args: [SERVER], env: [] },
      ],
      { cwd: tmp('coding-mcp-h-'), log: () => undefined },
    );
    try {
      const names = conns.tools().map((t) => t.name);
      expect(names.filter((n) => n.startsWith('mcp__a_b__echo'))).toEqual(['mcp__a_b__echo', 'mcp__a_b__echo_2']);
      expect(new Set(names).size).toBe(names.length);
      expect(names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))).toBe(true);
      const echo = conns.tools().find((t) => t.name === 'mcp__a_b__echo')!;
      expect(echo).toMatchObject({ kind: 'read', mutates: false });
      expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
      const write = conns.tools().find((t) => t.name === 'mcp__a_b__write_note')!;
      expect(write).toMatchObject({ kind: 'other', mutates: true });
      expect(conns.status().map((s) => [s.name, s.state, s.toolCount])).toEqual([
        ['a b', 'connected', 5],
        ['a_b', 'connected', 5],
      ]);
      const statusPids = conns.status().map((s) => s.pid!);
      expect(statusPids.every(alive)).toBe(true);
      await conns.close();
      expect(statusPids.some(alive)).toBe(false);
      expect(conns.tools()).toEqual([]);
    } finally {
      await conns.close();
    }
  });

  it('a server that goes away mid-session: its tools stay listed and fail saying why', async () => {
    const logs: string[] = [];
    const conns = await McpConnections.open(
      [{ type: 'stdio', name: 'echo', command: process.execPath, args: [RAW_SERVER], env: [] }],
      { cwd: tmp('coding-mcp-h-'), log: (l) => logs.push(l) },
    );
    try {
      const [st] = conns.status();
      expect(st.state).toBe('connected');
      process.kill(st.pid!, 'SIGKILL');
      await waitUntil(() => conns.status()[0].state === 'closed', 5000, 'the connection notices the exit');
      expect(logs.join('\n')).toMatch(/MCP server "echo": the server went away/);
      const echo = conns.tools().find((t) => t.name === 'mcp__echo__echo')!;
      const ctx = { signal: new AbortController().signal } as Parameters<typeof echo.execute>[1];
      await expect(echo.execute({ text: 'x' }, ctx)).rejects.toThrow(
        /MCP server "echo" is not connected: the server went away/,
      );
    } finally {
      await conns.close();
    }
  });

  it('maps MCP results: resources, links and structured content become ACP content; text for the model', () => {
    const out = mcpToolOutcome({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'alpha', mimeType: 'text/plain' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAEC' } },
        { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', description: 'notes' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(out.isError).toBe(false);
    expect(out.content).toEqual([
      {
        type: 'content',
        content: { type: 'resource', resource: { uri: 'file:///a.txt', text: 'alpha', mimeType: 'text/plain' } },
      },
      { type: 'content', content: { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAEC' } } },
      { type: 'content', content: { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', description: 'notes' } },
      { type: 'content', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } },
    ]);
    expect(out.result).toContain('<resource uri="file:///a.txt">\nalpha\n</resource>');
    expect(out.result).toContain('[binary resource file:///b.bin]');
    expect(out.result).toContain('[resource link c.md <file:///c.md>: notes]');

    const structured = mcpToolOutcome({ content: [], structuredContent: { answer: 42 } });
    expect(structured.result).toBe('{\n  "answer": 42\n}');
    expect(structured.rawOutput).toEqual({ answer: 42 });
    const failed = mcpToolOutcome({ content: [], isError: true });
    expect(failed).toMatchObject({ isError: true, result: 'The tool failed without a message.' });
  });
});

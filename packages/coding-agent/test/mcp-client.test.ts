/**
 * `@acp-kit/coding-agent/mcp`, the MCP client for any agent author (issue 26 item 5): real MCP
 * servers (test/fixtures/mcp-echo-server.mjs, official MCP SDK) over stdio and streamable HTTP on
 * loopback, a server that cannot start, and the end of a stdio server's process on close.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcpServers, MCP_CAPABILITIES, type McpServers } from '@acp-kit/coding-agent/mcp';
import type { McpServer } from '@acp-kit/protocol';
import { tempDir } from '../../../test/support/temp.js';
import { alive, waitUntil } from '../../../test/support/process.js';

const SERVER = resolve('test/fixtures/mcp-echo-server.mjs');
const opened: McpServers[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  for (const c of children) c.kill('SIGKILL');
});

const stdio = (name: string, env: Record<string, string> = {}): McpServer => ({
  type: 'stdio',
  name,
  command: process.execPath,
  args: [SERVER],
  env: Object.entries(env).map(([k, v]) => ({ name: k, value: v })),
});

async function connect(servers: McpServer[]): Promise<McpServers> {
  const logs: string[] = [];
  const s = await connectMcpServers(servers, { cwd: tempDir('mcp-client-'), log: (l) => logs.push(l) });
  opened.push(s);
  return s;
}

/** The fixture server in `--http` mode on a loopback port. */
async function httpServer(): Promise<string> {
  const child = spawn(process.execPath, [SERVER, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m?.[1]) ok(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`http fixture exited ${code}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

describe('connectMcpServers (the MCP client any agent can use)', () => {
  it('lists the tools of a stdio and an http server with unique names and calls them: ACP content back', async () => {
    const url = await httpServer();
    const s = await connect([
      stdio('local', { MCP_TAG: 'local' }),
      { type: 'http', name: 'remote', url, headers: [{ name: 'x-test-token', value: 'sesame' }] },
    ]);
    expect(s.status().map((x) => `${x.name} ${x.transport} ${x.state}`)).toEqual([
      'local stdio connected',
      'remote http connected',
    ]);
    const names = s.tools().map((t) => t.name);
    expect(names).toContain('mcp__local__echo');
    expect(names).toContain('mcp__remote__echo');
    const echo = s.tool('local', 'echo');
    expect(echo).toMatchObject({
      server: 'local',
      toolName: 'echo',
      readOnly: true,
      description: 'Echoes the text back',
    });
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(await echo?.call({ text: 'hi' })).toEqual({
      content: [{ type: 'content', content: { type: 'text', text: 'local: hi' } }],
      text: 'local: hi',
      isError: false,
    });
    // the http server has no MCP_TAG: its own answer, through its own transport
    expect((await s.tool('remote', 'echo')?.call({ text: 'yo' }))?.text).toBe('echo: yo');
    // a tool's own failure is a result, not a rejection
    expect(await s.tool('local', 'boom')?.call({})).toMatchObject({ isError: true, text: 'the boom tool exploded' });
    expect(s.tool('local', 'write_note')?.readOnly).toBe(false);
  }, 60_000);

  it('a server that cannot start is listed failed and offers nothing; the others still work', async () => {
    const s = await connect([
      { type: 'stdio', name: 'ghost', command: '/nonexistent/mcp-binary', args: [], env: [] },
      stdio('ok'),
    ]);
    const [ghost, ok] = s.status();
    expect(ghost).toMatchObject({ name: 'ghost', state: 'failed', toolCount: 0 });
    expect(ghost?.error).toMatch(/ENOENT/);
    expect(ok?.state).toBe('connected');
    expect(s.tools().every((t) => t.server === 'ok')).toBe(true);
    expect((await s.tool('ok', 'echo')?.call({ text: 'still' }))?.text).toBe('echo: still');
  }, 60_000);

  it('close() ends a stdio server process and empties the tool list', async () => {
    const pidFile = join(tempDir('mcp-client-pid-'), 'pid');
    const s = await connect([stdio('short', { MCP_PID_FILE: pidFile })]);
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await s.close();
    await waitUntil(() => !alive(pid), 20_000, `MCP server ${pid} ends`);
    expect(s.tools()).toEqual([]);
    expect(s.status()[0]?.state).toBe('closed');
  }, 60_000);

  it('MCP_CAPABILITIES names exactly the transports it connects', () => {
    expect(MCP_CAPABILITIES).toEqual({ stdio: true, http: true, sse: true });
  });
});

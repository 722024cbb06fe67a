/**
 * MCP servers in the built-in coding agent (ACP-V1-SESS-01, ACP-ALL-SESS-08, ACP-V2-RESUME-09):
 * `acp-kit agent` as a real process (needs `npm run build`), driven by acp-kit's client, with a
 * real MCP server (test/fixtures/mcp-echo-server.mjs, official MCP SDK) over stdio and streamable
 * HTTP. The demo model calls MCP tools with `mcp <server> <tool> <json>`. The tests about server
 * processes and restores use test/fixtures/mcp-raw-echo-server.mjs (no SDK: cheaper to start).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../../../test/support/temp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, interactive, type ClientConnection, type ClientSession } from '../../client/src/index.js';
import type { McpServer, PermissionRequest } from '../../protocol/src/index.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';
import { alive, waitUntil } from '../../../test/support/process.js';

const BIN = resolve('bin/acp-kit.js');
const SERVER = resolve('test/fixtures/mcp-echo-server.mjs');
// no MCP SDK inside: for the tests about server processes, not about MCP interop
const RAW_SERVER = resolve('test/fixtures/mcp-raw-echo-server.mjs');

const conns: ClientConnection[] = [];
const pids: number[] = [];
const children: ChildProcess[] = [];
// tests run concurrently (each has its own agent and servers): clean up once at the end
afterAll(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const c of children.splice(0)) c.kill('SIGKILL');
  // never leave a fixture server behind, whatever the test did
  for (const p of pids.splice(0)) if (alive(p)) process.kill(p, 'SIGKILL');
});

function tmp(prefix: string): string {
  return tempDir(prefix);
}

/** A stdio config of the fixture server; `pidFile` receives its pid. */
function echoServer(name: string, env: Record<string, string> = {}, pidFile?: string, script = SERVER): McpServer {
  const all = { ...env, ...(pidFile ? { MCP_PID_FILE: pidFile } : {}) };
  return {
    type: 'stdio',
    name,
    command: process.execPath,
    args: [script],
    env: Object.entries(all).map(([k, v]) => ({ name: k, value: v })),
  };
}

/** The SDK-free fixture server (one tool: echo): starts in a quarter of the CPU. */
function rawEchoServer(name: string, env: Record<string, string> = {}, pidFile?: string): McpServer {
  return echoServer(name, env, pidFile, RAW_SERVER);
}

// a hang guard, not a speed claim: a loaded 2-core CI machine can take seconds to start node processes
const WAIT_MS = 20_000;

async function pidFrom(file: string): Promise<number> {
  await waitUntil(() => existsSync(file) && readFileSync(file, 'utf8') !== '', WAIT_MS, `${file} is written`);
  const pid = Number(readFileSync(file, 'utf8'));
  pids.push(pid);
  return pid;
}

interface Started {
  conn: ClientConnection;
  asked: PermissionRequest[];
  stderr: () => string;
  /** Answers for one session's permission requests, in order (then reject), instead of `answers`. */
  answerSession: (sessionId: string, answers: string[]) => void;
}

/** `acp-kit agent` (demo model, no pauses); permission requests get `answers` in order (then reject). */
async function start(v: 1 | 2, opts: { answers?: string[]; dataDir?: string } = {}): Promise<Started> {
  const asked: PermissionRequest[] = [];
  const perSession = new Map<string, string[]>();
  let stderr = '';
  const conn = await connect({
    command: process.execPath,
    args: [BIN, 'agent'],
    protocol: v,
    env: { ...process.env, ACP_KIT_DEMO_DELAY_MS: '0', ACP_KIT_DATA_DIR: opts.dataDir ?? tmp('coding-mcp-data-') },
    onStderr: (t) => (stderr += t),
    permissionPolicy: interactive(async (req) => {
      asked.push(req);
      const answers = perSession.get(req.sessionId) ?? opts.answers;
      return answers?.[asked.filter((r) => r.sessionId === req.sessionId).length - 1] ?? 'reject_once';
    }),
  });
  conns.push(conn);
  return { conn, asked, stderr: () => stderr, answerSession: (id, answers) => perSession.set(id, answers) };
}

// One agent process per version for the tests that need no data dir of their own (each opens its
// own sessions with their own MCP servers and answers only its own sessions' permission requests):
// an agent process costs more CPU to start than such a test's turns. The tests about agent
// processes start their own.
const sharedAgents = new Map<1 | 2, Promise<Started>>();
function sharedAgent(v: 1 | 2): Promise<Started> {
  let agent = sharedAgents.get(v);
  if (!agent) sharedAgents.set(v, (agent = start(v)));
  return agent;
}

interface SharedSession {
  agent: Started;
  s: ClientSession;
  cwd: string;
  cancelFile: string;
}

// One session per version for the three tests about MCP tool calls and start failures (run in
// order): a tagged SDK echo server (env reaches it) next to a missing binary and a server that
// crashes at start. Each MCP server process costs ~0.5 s of CPU to start.
const sharedSessions = new Map<1 | 2, Promise<SharedSession>>();
function sharedSession(v: 1 | 2): Promise<SharedSession> {
  let shared = sharedSessions.get(v);
  if (!shared) {
    shared = (async () => {
      const agent = await sharedAgent(v);
      const cwd = tmp('coding-mcp-');
      const cancelFile = join(tmp('coding-mcp-cancel-'), 'cancelled');
      const s = await agent.conn.newSession({
        cwd,
        mcpServers: [
          { type: 'stdio', name: 'ghost', command: '/nonexistent/mcp-server-binary', args: [], env: [] },
          { type: 'stdio', name: 'crashy', command: process.execPath, args: [SERVER, '--crash'], env: [] },
          // MCP_TAG prefixes the echo
          echoServer('echo', { MCP_TAG: 'tagged', MCP_CANCEL_FILE: cancelFile }),
        ],
      });
      return { agent, s, cwd, cancelFile };
    })();
    sharedSessions.set(v, shared);
  }
  return shared;
}

function calls(s: ClientSession) {
  return [...s.state.toolCalls.values()];
}

function lastCall(s: ClientSession) {
  const all = calls(s);
  return all[all.length - 1];
}

function texts(content: readonly unknown[]): string[] {
  return content.map((c) => (c as { content?: { text?: string } }).content?.text ?? '').filter(Boolean);
}

describe.concurrent('coding agent MCP', () => {
  for (const v of [1, 2] as const)
    describe(`over v${v}`, () => {
      // the three tests share one session (see sharedSession), in this order
      describe.sequential('one session with a working and two failing servers', () => {
        it('calls MCP tools through the demo rule: read-only without asking, results as tool-call content, isError -> failed, images, cancel', async () => {
          const {
            agent: { conn, asked },
            s,
            cancelFile,
          } = await sharedSession(v);
          expect(conn.agentCapabilities.mcp).toMatchObject({ http: true, ...(v === 2 ? { stdio: true } : {}) });
          // env reaches the server (MCP_TAG prefixes the echo)
          const r = await s.prompt('mcp echo echo {"text": "hello mcp"}');
          expect(r.stopReason).toBe('end_turn');
          const tc = lastCall(s);
          expect(tc.name).toBe('mcp__echo__echo');
          expect(tc.status).toBe('completed');
          expect(tc.toolKind).toBe('read');
          expect(tc.rawInput).toEqual({ text: 'hello mcp' });
          expect(texts(tc.content)).toEqual(['tagged: hello mcp']);
          // the model got the result back and summarized it
          expect(
            s.state.messageList
              .filter((m) => m.role === 'agent')
              .map((m) => m.text)
              .join('\n'),
          ).toContain('tagged: hello mcp');

          await s.prompt('mcp echo boom');
          expect(lastCall(s).status).toBe('failed');
          expect(texts(lastCall(s).content)).toEqual(['the boom tool exploded']);

          await s.prompt('mcp echo pixel');
          const px = lastCall(s);
          expect(px.status).toBe('completed');
          expect(px.content).toContainEqual({
            type: 'content',
            content: { type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) },
          });

          // the server validates the arguments; its message ends the call failed
          await s.prompt('mcp echo echo {"wrong": 1}');
          expect(lastCall(s).status).toBe('failed');
          expect(texts(lastCall(s).content).join()).toMatch(/text/);
          // (the agent is shared: only this session's requests count)
          expect(asked.filter((r) => r.sessionId === s.sessionId)).toEqual([]);

          // cancelling the turn cancels the running MCP request (notifications/cancelled reaches the server)
          const done = s.prompt('mcp echo slow');
          await waitUntil(() => existsSync(`${cancelFile}.started`), WAIT_MS, 'the slow call runs in the server');
          // the server process may see the call before this client has applied the agent's in_progress update
          await waitUntil(
            () => lastCall(s)?.name === 'mcp__echo__slow' && lastCall(s)?.status === 'in_progress',
            WAIT_MS,
            'the client shows the slow call in progress',
          );
          expect(lastCall(s)).toMatchObject({ name: 'mcp__echo__slow', status: 'in_progress' });
          s.cancel();
          expect((await done).stopReason).toBe('cancelled');
          expect(lastCall(s).status).toBe(v === 2 ? 'cancelled' : 'failed');
          await waitUntil(() => existsSync(cancelFile), WAIT_MS, 'the server saw the cancellation');
        });

        it('a server that cannot start does not break the session: the user is told, the other server works', async () => {
          const {
            agent: { stderr },
            s,
          } = await sharedSession(v);
          // acp-kit's client advertises notices in v1 too, so both versions get a notice per server
          await waitUntil(() => s.state.notices.length >= 2, WAIT_MS, 'two notices arrive');
          const notices = s.state.notices.map((n) => `${n.title} ${n.description}`);
          expect(notices.find((n) => n.includes('"ghost"'))).toMatch(/ENOENT/);
          // the tail of the server's stderr explains the failure
          expect(notices.find((n) => n.includes('"crashy"'))).toMatch(/missing configuration/);
          expect(stderr()).toMatch(/MCP server "ghost" \(stdio\) failed to start/);
          const r = await s.prompt('mcp echo echo {"text": "works"}');
          expect(r.stopReason).toBe('end_turn');
          expect(texts(lastCall(s).content)).toEqual(['tagged: works']);
          // the failed server's tools do not exist; the model is told which do
          await s.prompt('mcp ghost anything');
          expect(lastCall(s).status).toBe('failed');
          expect(texts(lastCall(s).content).join()).toMatch(/unknown tool "mcp__ghost__anything".*mcp__echo__echo/);
          // /help lists the servers and their state
          await s.prompt('/help');
          expect(s.state.messageList.at(-1)!.text).toMatch(
            /MCP servers: ghost \(failed: .*ENOENT.*\), crashy \(failed: .*\), echo \(5 tools\)/,
          );
        });

        it('a non-read-only MCP tool asks first: rejected -> failed and not run; approved -> runs in the session cwd; read-only mode refuses', async () => {
          const { agent, s, cwd } = await sharedSession(v);
          agent.answerSession(s.sessionId, ['reject_once', 'allow_once']);
          // (the agent is shared: only this session's requests count)
          const asked = {
            get all() {
              return agent.asked.filter((r) => r.sessionId === s.sessionId);
            },
          };
          await s.prompt('mcp echo write_note {"note": "first"}');
          expect(asked.all).toHaveLength(1);
          expect(asked.all[0].subject).toMatchObject({
            type: 'tool_call',
            toolCall: { name: 'mcp__echo__write_note' },
          });
          expect(lastCall(s).status).toBe('failed');
          expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);

          await s.prompt('mcp echo write_note {"note": "second"}');
          expect(asked.all).toHaveLength(2);
          expect(lastCall(s).status).toBe('completed');
          expect(lastCall(s).toolKind).toBe('other');
          expect(texts(lastCall(s).content)).toEqual(['saved note "second"']);
          expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('second\n');

          await s.setConfigOption('mode', 'read-only');
          await s.prompt('mcp echo write_note {"note": "third"}');
          expect(asked.all).toHaveLength(2);
          expect(lastCall(s).status).toBe('failed');
          expect(texts(lastCall(s).content).join()).toMatch(/read-only/);
          expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('second\n');
          // read-only tools still run in read-only mode
          await s.prompt('mcp echo echo {"text": "still here"}');
          expect(lastCall(s).status).toBe('completed');
        });
      });

      it('server processes end on session/close and when the connection ends (even a server that ignores stdin EOF)', async () => {
        // our own spawn (no process-group kill), so only the agent can end the MCP servers
        const child = spawn(process.execPath, [BIN, 'agent'], {
          env: { ...process.env, ACP_KIT_DEMO_DELAY_MS: '0', ACP_KIT_DATA_DIR: tmp('coding-mcp-data-') },
          stdio: ['pipe', 'pipe', 'ignore'],
        });
        children.push(child);
        const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
        const conn = await connect({ transport: new StreamTransport(child.stdout!, child.stdin!), protocol: v });

        const pid1File = join(tmp('coding-mcp-pid-'), 'pid');
        const s1 = await conn.newSession({
          cwd: tmp('coding-mcp-'),
          mcpServers: [rawEchoServer('echo', {}, pid1File)],
        });
        const pid1 = await pidFrom(pid1File);
        await s1.prompt('mcp echo echo {"text": "x"}');
        expect(alive(pid1)).toBe(true);
        await s1.close();
        await waitUntil(() => !alive(pid1), WAIT_MS, `MCP server ${pid1} is gone after session/close`);

        const pid2File = join(tmp('coding-mcp-pid-'), 'pid');
        await conn.newSession({
          cwd: tmp('coding-mcp-'),
          mcpServers: [rawEchoServer('echo', { MCP_STUBBORN: '1' }, pid2File)],
        });
        const pid2 = await pidFrom(pid2File);
        expect(alive(pid2)).toBe(true);
        await conn.close(); // ends the agent's stdin
        expect(await exited).toBe(0);
        await waitUntil(() => !alive(pid2), WAIT_MS, `MCP server ${pid2} is gone after the connection ended`);
      });

      it('restoring a session reconnects with exactly the servers of the restore request', async () => {
        const dataDir = tmp('coding-mcp-data-');
        const cwd = tmp('coding-mcp-');
        const first = await start(v, { dataDir });
        const pid1File = join(tmp('coding-mcp-pid-'), 'pid');
        const s = await first.conn.newSession({
          cwd,
          mcpServers: [rawEchoServer('echo', { MCP_TAG: 'one' }, pid1File)],
        });
        const pid1 = await pidFrom(pid1File);
        await s.prompt('mcp echo echo {"text": "a"}');
        expect(texts(lastCall(s).content)).toEqual(['one: a']);
        await first.conn.close();
        await waitUntil(() => !alive(pid1), WAIT_MS, 'the first server is gone');

        // a new agent process restores the stored session with another server list
        const second = await start(v, { dataDir });
        const pid2File = join(tmp('coding-mcp-pid-'), 'pid');
        const servers = [rawEchoServer('echo', { MCP_TAG: 'two' }, pid2File)];
        const again =
          v === 1
            ? await second.conn.loadSession(s.sessionId, { cwd, mcpServers: servers })
            : await second.conn.resumeSession(s.sessionId, { cwd, mcpServers: servers });
        const pid2 = await pidFrom(pid2File);
        await again.prompt('mcp echo echo {"text": "b"}');
        expect(texts(lastCall(again).content)).toEqual(['two: b']);

        if (v === 1) {
          // v1 load on the same connection reopens the session: old servers closed, the new (empty) list used
          const reloaded = await second.conn.loadSession(s.sessionId, { cwd, mcpServers: [] });
          await waitUntil(() => !alive(pid2), WAIT_MS, 'the second server is gone after a load without servers');
          await reloaded.prompt('mcp echo echo {"text": "c"}');
          expect(lastCall(reloaded).status).toBe('failed');
          expect(texts(lastCall(reloaded).content).join()).toMatch(/unknown tool/);
        }
      });
    });
});

/** The fixture server in `--http` or `--sse` mode on a loopback port; resolves with the port. */
async function httpServer(mode: '--http' | '--sse'): Promise<number> {
  const server = spawn(process.execPath, [SERVER, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(server);
  return new Promise<number>((resolvePort, reject) => {
    let out = '';
    server.stdout?.on('data', (d) => {
      out += String(d);
      const m = /listening (\d+)/.exec(out);
      if (m) resolvePort(Number(m[1]));
    });
    server.on('exit', (code) => reject(new Error(`${mode} MCP server exited ${code}`)));
  });
}

describe.concurrent('coding agent MCP over streamable HTTP', () => {
  it('connects over legacy SSE (v1 only) with the configured headers, calls a tool, lists and reads resources', async () => {
    const url = `http://127.0.0.1:${await httpServer('--sse')}/sse`;
    const { conn } = await sharedAgent(1);
    expect(conn.agentCapabilities.mcp).toMatchObject({ sse: true });
    const s = await conn.newSession({
      cwd: tmp('coding-mcp-'),
      mcpServers: [
        { type: 'sse', name: 'old', url, headers: [{ name: 'x-test-token', value: 'sesame' }] },
        // the server answers 401 without the header: reported, not fatal
        { type: 'sse', name: 'nokey', url, headers: [] },
      ],
    });
    await s.prompt('mcp old echo {"text": "over sse"}');
    expect(lastCall(s).status).toBe('completed');
    expect(texts(lastCall(s).content)).toEqual(['echo: over sse']);
    // the server advertises resources: they are two read-only tools, results as ACP content blocks
    await s.prompt('mcp old list_resources');
    expect(lastCall(s)).toMatchObject({ name: 'mcp__old__list_resources', status: 'completed', toolKind: 'read' });
    expect(lastCall(s).content).toContainEqual({
      type: 'content',
      content: expect.objectContaining({ type: 'resource_link', uri: 'note://readme', name: 'readme' }),
    });
    await s.prompt('mcp old read_resource {"uri": "note://readme"}');
    expect(lastCall(s)).toMatchObject({ name: 'mcp__old__read_resource', status: 'completed' });
    expect(lastCall(s).content).toEqual([
      {
        type: 'content',
        content: {
          type: 'resource',
          resource: { uri: 'note://readme', mimeType: 'text/plain', text: 'hello from a resource' },
        },
      },
    ]);
    await waitUntil(
      () => s.state.notices.some((n) => n.title.includes('"nokey"')),
      WAIT_MS,
      'the nokey notice arrives',
    );
    // v2 has no SSE: the agent does not claim it there
    const v2 = await sharedAgent(2);
    expect(v2.conn.agentCapabilities.mcp?.sse).toBeFalsy();
  });

  it('connects with the configured headers and calls a tool (v1 and v2)', async () => {
    const url = `http://127.0.0.1:${await httpServer('--http')}/mcp`;
    for (const v of [1, 2] as const) {
      const { conn } = await sharedAgent(v);
      const s = await conn.newSession({
        cwd: tmp('coding-mcp-'),
        mcpServers: [
          { type: 'http', name: 'web', url, headers: [{ name: 'x-test-token', value: 'sesame' }] },
          // the server answers 401 without the header: reported, not fatal
          { type: 'http', name: 'nokey', url, headers: [] },
        ],
      });
      await s.prompt('mcp web echo {"text": "over http"}');
      expect(lastCall(s).status).toBe('completed');
      expect(texts(lastCall(s).content)).toEqual(['echo: over http']);
      await waitUntil(
        () => s.state.notices.some((n) => n.title.includes('"nokey"')),
        WAIT_MS,
        'the nokey notice arrives',
      );
    }
  });
});

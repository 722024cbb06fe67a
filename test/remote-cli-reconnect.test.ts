// `acp-kit run --agent-url` across a dropped connection, with the real CLI and a real `acp-kit
// serve` (built-in agent, demo model): a loopback TCP relay between them loses the client's side of
// every connection mid-turn (the client sees its sockets die; the server's side stays up, as when a
// laptop changes networks). The CLI reconnects, resumes the session with a replay and prints the
// rest of the turn: its NDJSON output equals a direct run's line for line, no loss, no duplicate.
// One server serves the three transports (its WebSocket, HTTP/1.1 and h2c endpoints): each test
// opens its own sessions, and a server process costs more CPU to start than a test's runs.
// Needs `npm run build` (bin/acp-kit.js runs from dist/).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCutProxy, type CutProxy } from './support/cut-proxy.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const TOKEN = 'cli-reconnect-token';
const procs: ChildProcess[] = [];
const dirs: string[] = [];
const relays: CutProxy[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
  await Promise.all(procs.splice(0).map(stop));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// the server shared by the tests of this file (started once, stopped after the last test)
let shared: { proc: ChildProcess; dir: string; endpoints: { url: string; port: number; http2: string } } | undefined;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acp-cli-reconnect-serve-'));
  const started = startServe(join(dir, 'data'));
  shared = { proc: started.proc, dir, endpoints: { url: '', port: 0, http2: '' } };
  shared.endpoints = await started.endpoints;
});
afterAll(async () => {
  if (!shared) return;
  await stop(shared.proc);
  rmSync(shared.dir, { recursive: true, force: true });
});

async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await exited;
}

function startServe(dataDir: string): {
  proc: ChildProcess;
  endpoints: Promise<{ url: string; port: number; http2: string }>;
} {
  const proc = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--http2-port', '0', '--token', TOKEN, '--model', 'demo'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ACP_KIT_DATA_DIR: dataDir },
    },
  );
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  const endpoints = new Promise<{ url: string; port: number; http2: string }>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  });
  return { proc, endpoints };
}

interface RunResult {
  code: number | null;
  lines: string[];
  stderr: string;
}

/** `acp-kit run --json --agent-url <url> <prompt>`; `onLine` sees each stdout line as it comes. */
function runCli(
  url: string,
  extra: readonly string[],
  prompt: string,
  cwd: string,
  onLine?: (line: string) => void,
): Promise<RunResult> {
  const proc = spawn(process.execPath, [BIN, 'run', '--json', '--agent-url', url, ...extra, '--cwd', cwd, prompt], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ACP_KIT_AGENT_TOKEN: TOKEN, NO_COLOR: '1' },
  });
  procs.push(proc);
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (c) => (stderr += c));
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    lines.push(line);
    onLine?.(line);
  });
  return new Promise((resolve) => proc.once('close', (code) => resolve({ code, lines, stderr })));
}

/** The output with the session id (minted per session) made neutral. */
function normalized(lines: string[]): string[] {
  const id = (JSON.parse(lines.find((l) => JSON.parse(l).type === 'session')!) as { sessionId: string }).sessionId;
  // the connection line names the URL run connected to (the relay's or the server's port)
  return lines.map((l) =>
    l
      .split(id)
      .join('<session>')
      .replace(/"agent":\["(ws|http)s?:\/\/127\.0\.0\.1:\d+\/acp"\]/, '"agent":["<url>"]'),
  );
}

/**
 * Per profile: the server URL to reach, the CLI's extra flags, and whether the transport resumes a
 * dropped stream itself (Streamable HTTP: Last-Event-ID, so the CLI has nothing to reconnect).
 */
const profiles = [
  ['websocket', (serve: { url: string }) => serve.url.replace(/^http/, 'ws'), [], false],
  ['streamable http', (serve: { url: string }) => serve.url, [], true],
  ['streamable http over HTTP/2 (h2c)', (serve: { http2: string }) => serve.http2, ['--agent-http2'], true],
] as const;

describe.each(profiles)('run --agent-url over %s', (_name, endpoint, extra, streamResumes) => {
  it('a connection dropped mid-turn: the CLI reconnects, resumes, and prints what a direct run prints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-cli-reconnect-'));
    dirs.push(dir);
    expect(shared!.proc.exitCode).toBeNull();
    const direct = endpoint(shared!.endpoints);
    const relay = await startCutProxy(Number(new URL(direct).port));
    relays.push(relay);
    const relayed = direct.replace(/:\d+\/acp$/, `:${new URL(relay.url).port}/acp`);

    let severed = false;
    // the direct run (its own session) goes at the same time: it is only the reference output
    const [cut, uncut] = await Promise.all([
      runCli(relayed, extra, 'hello', dir, (line) => {
        const event = JSON.parse(line) as { type: string; update?: { sessionUpdate: string } };
        // the network goes away after the first chunk of the answer reached the user
        if (!severed && event.type === 'update' && event.update?.sessionUpdate === 'agent_message_chunk') {
          severed = true;
          relay.severClients();
        }
      }),
      runCli(direct, extra, 'hello', dir),
    ]);
    expect(severed).toBe(true);

    expect(uncut.code).toBe(0);
    expect(cut.code).toBe(0);
    expect(JSON.parse(cut.lines.at(-1)!)).toMatchObject({ type: 'result', stopReason: 'end_turn' });
    expect(normalized(cut.lines)).toEqual(normalized(uncut.lines));
    expect(uncut.stderr).not.toMatch(/reconnected/);
    if (streamResumes) {
      // the event stream was resumed under the CLI: no reconnect, nothing to tell the user
      expect(cut.stderr).not.toMatch(/reconnected/);
      return;
    }
    // one line tells the user it reconnected; the direct run says nothing of the kind
    expect(cut.stderr.match(/reconnected/g)).toHaveLength(1);
    expect(cut.stderr).toMatch(
      /^acp-kit: the connection to .* dropped; reconnected \(attempt 1\) and resumed the session$/m,
    );
  }, 60_000);
});

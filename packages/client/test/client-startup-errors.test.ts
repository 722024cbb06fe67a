// connect() fails fast on a broken agent (issue 8.6), with real child processes: a non-JSON line
// on stdout followed by silence rejects within the grace, quoting the line and naming stdout; an
// agent that exits before answering says so with its exit code and its last stdout and stderr
// lines; a stray line followed by valid JSON-RPC keeps the connection.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentStartupError,
  connect,
  ConnectionClosedError,
  NON_JSON_STDOUT_GRACE_MS,
  type ClientConnection,
  type ClientProblem,
} from '../src/index.js';
import { alive, waitUntil } from '../../../test/support/process.js';

const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** An inline agent: answers `initialize` (v1) with `answer(id)` lines when the request arrives. */
const agentScript = (onInit: string, before = '') => `
${before}
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  const i = buf.indexOf('\\n');
  if (i < 0) return;
  const id = JSON.parse(buf.slice(0, i)).id;
  const answer = JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }) + '\\n';
  ${onInit}
});
setInterval(() => {}, 1 << 30);
`;

async function connectTo(script: string, problems: ClientProblem[] = []): Promise<ClientConnection> {
  const conn = await connect({
    command: process.execPath,
    args: ['-e', script],
    initializeTimeoutMs: 20_000,
    onProblem: (p) => problems.push(p),
  });
  cleanup.push(() => conn.close());
  return conn;
}

async function startupError(script: string): Promise<AgentStartupError> {
  const started = Date.now();
  const e = await connect({
    command: process.execPath,
    args: ['-e', script],
    initializeTimeoutMs: 20_000,
    onStderr: () => undefined,
  }).then(
    (c) => {
      cleanup.push(() => c.close());
      return null;
    },
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AgentStartupError);
  const err = e as AgentStartupError;
  // well before the 20 s initialize limit
  expect(Date.now() - started).toBeLessThan(10_000);
  return err;
}

describe('connect fails fast on a broken agent (ACP-ALL-TRANS-05: stdout carries only ACP messages)', () => {
  it(`a non-JSON stdout line followed by silence rejects after ${NON_JSON_STDOUT_GRACE_MS} ms, quoting the line and saying it came from stdout`, async () => {
    const script = agentScript(
      '',
      "process.stdout.write('Starting my-agent v1.2 on port 8080\\n'); process.stderr.write('loading config\\n');",
    );
    const err = await startupError(script);
    expect(err.kind).toBe('non-json-stdout');
    expect(err.firstNonJsonLine).toBe('Starting my-agent v1.2 on port 8080');
    expect(err.stdoutTail).toEqual(['Starting my-agent v1.2 on port 8080']);
    expect(err.message).toMatch(
      /^the agent wrote a line that is not JSON to stdout and then no JSON-RPC message within 1 s: "Starting my-agent v1\.2 on port 8080" \(/,
    );
    expect(err.message).toContain('log to stderr');
    expect(err).toBeInstanceOf(ConnectionClosedError);
  });

  it('the agent process is gone once connect has rejected', async () => {
    const script = agentScript('', "process.stdout.write('banner\\n');");
    let pid = 0;
    const e = await connect({
      command: process.execPath,
      args: ['-e', `${script}\nprocess.stderr.write('pid=' + process.pid + '\\n');`],
      initializeTimeoutMs: 20_000,
      onStderr: (t) => {
        const m = /pid=(\d+)/.exec(t);
        if (m) pid = Number(m[1]);
      },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentStartupError);
    expect(pid).toBeGreaterThan(0);
    await waitUntil(() => !alive(pid), 5000, 'the agent process is gone');
  });

  it('an agent that exits before answering: exit code and its last stdout and stderr lines', async () => {
    const script =
      "process.stdout.write('usage: my-agent [--acp]\\n'); process.stderr.write('error: unknown flag\\nfatal: no config\\n'); process.exitCode = 7;";
    const err = await startupError(script);
    expect(err.kind).toBe('exited');
    expect(err.exitCode).toBe(7);
    expect(err.firstNonJsonLine).toBe('usage: my-agent [--acp]');
    expect(err.stdoutTail).toEqual(['usage: my-agent [--acp]']);
    expect(err.stderrTail).toBe('error: unknown flag\nfatal: no config');
    expect(err.message).toMatch(/^the agent exited with code 7 before answering initialize \(/);
    expect(err.message).toContain('--- last stdout lines ---\nusage: my-agent [--acp]');
    expect(err.message).toContain('--- last stderr lines ---\nerror: unknown flag\nfatal: no config');
    expect(err.info.exitCode).toBe(7);
  });

  it('a stray stdout line followed by the initialize answer connects (the line is reported as a problem)', async () => {
    const problems: ClientProblem[] = [];
    const conn = await connectTo(agentScript("process.stdout.write('a stray log line\\n' + answer);"), problems);
    expect(conn.protocolVersion).toBe(1);
    expect(problems.map((p) => p.kind)).toEqual(['parse']);
  });

  it('a stray line followed by a valid JSON-RPC message keeps waiting for a slow answer past the grace', async () => {
    const note = JSON.stringify({ jsonrpc: '2.0', method: '_vendor/starting', params: {} });
    const conn = await connectTo(
      agentScript(
        `process.stdout.write('warming up\\n' + ${JSON.stringify(note)} + '\\n'); setTimeout(() => process.stdout.write(answer), ${NON_JSON_STDOUT_GRACE_MS + 500});`,
      ),
    );
    expect(conn.protocolVersion).toBe(1);
  });
});

describe('connect() with no usable agent says which field is wrong (a new user wrote command: [program, ...args])', () => {
  it('an array, a missing command and an empty string each name `command` and what it must be', async () => {
    const bad = (v: unknown) => connect({ command: v } as unknown as Parameters<typeof connect>[0]);
    await expect(bad(['node', 'agent.js'])).rejects.toThrow(
      /`command` must be the program as a string, with its arguments in `args` \(got an array\)/,
    );
    await expect(bad(undefined)).rejects.toThrow(/give `command` .*`url` .*`transport`/);
    await expect(bad('')).rejects.toThrow(/`command` must be a non-empty string .*\(got ""\)/);
  });
});

// SIGTERM of a real `acp-kit serve` while a Streamable HTTP client is still connected and has
// stopped reading its event stream (a suspended laptop, a stuck proxy): the server ends the turn,
// gives the client the grace period to take what it was sent, then ends the stream and its socket
// and exits; it does not wait on the client. Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const AGENT = fileURLToPath(new URL('../../../test/fixtures/e2e-agent.mjs', import.meta.url));
const TOKEN = 'shutdown-token-0123456789';
const procs: ChildProcess[] = [];
const responses: IncomingMessage[] = [];
afterEach(async () => {
  for (const r of responses.splice(0)) r.destroy();
  await Promise.all(
    procs.splice(0).map(async (p) => {
      if (p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await exited;
    }),
  );
});

function startServe(args: string[]): Promise<{ proc: ChildProcess; url: string; stderr: () => string }> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--token', TOKEN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) =>
      resolve({ proc, url: JSON.parse(line).url, stderr: () => err }),
    );
  });
}

/** One POST of a JSON-RPC message; resolves with the status, the connection id header and the body. */
function post(
  url: string,
  message: object,
  connectionId?: string,
  sessionId?: string,
): Promise<{ status: number; connectionId?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(connectionId ? { 'acp-connection-id': connectionId } : {}),
          ...(sessionId ? { 'acp-session-id': sessionId } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            connectionId: res.headers['acp-connection-id'] as string | undefined,
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(message));
  });
}

it('SIGTERM with an HTTP client that stopped reading its event stream: serve exits within the grace period', async () => {
  const serve = await startServe([
    '--shutdown-grace',
    '1',
    '--max-message-bytes',
    '50000000',
    '--agent',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(AGENT)}`,
  ]);
  const init = await post(serve.url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: 2, info: { name: 'raw-test-client', version: '1.0.0' }, clientCapabilities: {} },
  });
  expect(init.status).toBe(200);
  expect(JSON.parse(init.body)).toHaveProperty('result.protocolVersion', 2);
  const connectionId = init.connectionId!;
  expect(connectionId).toBeTruthy();

  // the connection's event stream: read until the turn's first chunk, then never again
  const stream = await new Promise<IncomingMessage>((resolve, reject) => {
    request(
      serve.url,
      {
        method: 'GET',
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'acp-connection-id': connectionId },
      },
      resolve,
    )
      .on('error', reject)
      .end();
  });
  responses.push(stream);
  expect(stream.statusCode).toBe(200);
  let seen = '';
  const waitFor = (pattern: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve) => {
      const check = (): void => {
        const m = seen.match(pattern);
        if (!m) return;
        stream.off('data', onData);
        stream.pause();
        resolve(m);
      };
      const onData = (c: Buffer): void => {
        seen += c.toString('utf8');
        check();
      };
      stream.on('data', onData);
      stream.resume();
    });

  const created = waitFor(/"id":2,"result":\{"sessionId":"([^"]+)"/);
  expect(
    (
      await post(
        serve.url,
        { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } },
        connectionId,
      )
    ).status,
  ).toBe(202);
  const sessionId = (await created)[1];

  // ~20 MB of chunks (more than the socket buffers hold, less than the buffered-bytes limit), then a long sleep
  const big = 'x'.repeat(100_000);
  const actions: unknown[] = [];
  for (let i = 0; i < 200; i++)
    actions.push({
      send: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: big } },
    });
  actions.push({ sleep: 60_000 });
  const chunking = waitFor(/agent_message_chunk/);
  const prompt = {
    jsonrpc: '2.0',
    id: 3,
    method: 'session/prompt',
    params: { sessionId, prompt: [{ type: 'text', text: JSON.stringify({ actions }) }] },
  };
  const answer = await post(serve.url, prompt, connectionId, sessionId);
  expect(answer.body).toBe('');
  expect(answer.status).toBe(202);
  await chunking;

  const exited = new Promise<number | null>((resolve) => serve.proc.once('exit', resolve));
  const t0 = Date.now();
  serve.proc.kill('SIGTERM');
  const deadline = new Promise<'still running'>((resolve) =>
    setTimeout(() => resolve('still running'), 10_000).unref(),
  );
  expect(await Promise.race([exited, deadline])).toBe(0);
  // the grace period (1 s) and a little: not the 10 s this test would wait
  expect(Date.now() - t0).toBeLessThan(6_000);
  expect(serve.stderr()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
}, 40_000);

// Review of the socket guard: a socket refused at accept (429/503 written before its request is
// read) must not have its request run anyway. A client that sends a complete `initialize` at once
// got the 429 and, behind it, the server still parsed the request and started an agent for it.
import { connect as tcpConnect, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { AgentHostFactory } from '../src/index.js';
import { inProcessAgent, startAcpServer, type AcpServer } from '../src/index.js';

const TOKEN = 'guard-refused-token-0123456789abcdef';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function socketTo(port: number): { socket: Socket; answer: () => string; closed: Promise<void> } {
  const socket = tcpConnect({ host: '127.0.0.1', port });
  cleanups.push(() => socket.destroy());
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (answer += d));
  socket.on('error', () => undefined);
  return { socket, answer: () => answer, closed: new Promise((r) => socket.once('close', () => r())) };
}

it('a socket refused with 429 at accept does not get its request run (no agent started, nothing after the 429)', async () => {
  let hosts = 0;
  const inner = inProcessAgent({
    info: { name: 'guard-test', version: '1.0.0' },
    prompt: async () => ({ stopReason: 'end_turn' }),
  });
  const agent: AgentHostFactory = (transport, ctx) => {
    hosts++;
    return inner(transport, ctx);
  };
  const server: AcpServer = await startAcpServer({ tokens: [TOKEN], agent, maxPendingSocketsPerIp: 1 });
  cleanups.push(() => server.close(1000));
  // the one pending socket this address may hold
  const idle = socketTo(server.port);
  await new Promise<void>((r) => idle.socket.once('connect', () => r()));
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
  const refused = socketTo(server.port);
  refused.socket.once('connect', () =>
    refused.socket.write(
      `POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ),
  );
  await refused.closed;
  expect(refused.answer()).toMatch(/^HTTP\/1\.1 429 /);
  // exactly one HTTP answer: the refusal
  expect(refused.answer().match(/HTTP\/1\.1 /g)).toHaveLength(1);
  expect(hosts).toBe(0);
  expect(server.connectionCount).toBe(0);
});

/**
 * The client's serving side of MCP over ACP (`mcp/message`, unstable MCP-over-ACP RFD) with a real
 * MCP SDK server object: the binding's failures are outer errors with the SDK's codes (-33001 no
 * such server, -32602 a duplicate active request id, -32800 cancelled), and cancelling the outer
 * request cancels the inner one in the server (its handler's signal aborts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { AcpError } from '../../protocol/src/index.js';
import { McpBindingError, McpOverAcpServers } from '../src/mcp-over-acp.js';

/** A server whose `wait` tool runs until its request is cancelled, and says so. */
function waitingServer(): { server: McpServer; started: Promise<void>; cancelled: Promise<string> } {
  const server = new McpServer({ name: 'waits', version: '1.0.0' });
  let start!: () => void;
  let cancel!: (why: string) => void;
  const started = new Promise<void>((r) => (start = r));
  const cancelled = new Promise<string>((r) => (cancel = r));
  server.registerTool('wait', {}, async (extra) => {
    start();
    await new Promise<void>((r) => extra.signal.addEventListener('abort', () => r(), { once: true }));
    cancel('aborted');
    return { content: [] };
  });
  return { server, started, cancelled };
}

async function rejection(p: Promise<unknown>): Promise<AcpError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof AcpError)) throw new Error(`expected an AcpError, got ${String(e)}`);
  return e;
}

describe('McpOverAcpServers (client side of mcp/message)', () => {
  it('an unknown serverId is -33001', async () => {
    const servers = new McpOverAcpServers();
    const e = await rejection(
      servers.handle(
        { serverId: 'nope', requestId: 'r1', method: 'tools/list' },
        new AbortController().signal,
        () => {},
      ),
    );
    expect(e.code).toBe(McpBindingError.serverUnavailable);
    expect(e.code).toBe(-33001);
  });

  it('tools/list answers with the inner result; a second active request with the same id is -32602', async () => {
    const { server, started } = waitingServer();
    const servers = new McpOverAcpServers();
    const { serverId } = servers.offer('waits', server);
    const list = await servers.handle(
      { serverId, requestId: 'l1', method: 'tools/list' },
      new AbortController().signal,
      () => {},
    );
    expect(list).toMatchObject({ result: { tools: [{ name: 'wait' }] } });
    const abort = new AbortController();
    const first = servers.handle(
      { serverId, requestId: 'r1', method: 'tools/call', params: { name: 'wait' } },
      abort.signal,
      () => {},
    );
    await started;
    const dup = await rejection(
      servers.handle(
        { serverId, requestId: 'r1', method: 'tools/call', params: { name: 'wait' } },
        new AbortController().signal,
        () => {},
      ),
    );
    expect(dup.code).toBe(-32602);
    abort.abort();
    expect((await rejection(first)).code).toBe(-32800);
    await servers.close();
  });

  it('cancelling the outer request cancels the inner one in the server (notifications/cancelled)', async () => {
    const { server, started, cancelled } = waitingServer();
    const servers = new McpOverAcpServers();
    const { serverId } = servers.offer('waits', server);
    const abort = new AbortController();
    const call = servers.handle(
      { serverId, requestId: 'c1', method: 'tools/call', params: { name: 'wait' } },
      abort.signal,
      () => {},
    );
    await started;
    abort.abort();
    expect((await rejection(call)).code).toBe(McpBindingError.requestCancelled);
    await expect(cancelled).resolves.toBe('aborted');
    // closed: later requests are -33001
    await servers.close();
    const after = await rejection(
      servers.handle({ serverId, requestId: 'c2', method: 'tools/list' }, new AbortController().signal, () => {}),
    );
    expect(after.code).toBe(-33001);
  });

  it('the same server object offered twice (two sessions) is connected once and keeps its serverId', async () => {
    const { server } = waitingServer();
    const servers = new McpOverAcpServers();
    const a = servers.offer('waits', server);
    const b = servers.offer('waits', server);
    expect(b).toEqual(a);
    expect(servers.size).toBe(1);
    const list = await servers.handle(
      { serverId: a.serverId, requestId: 'l1', method: 'tools/list' },
      new AbortController().signal,
      () => {},
    );
    expect(list).toMatchObject({ result: { tools: [{ name: 'wait' }] } });
    await servers.close();
  });
});

// JSON-RPC 2.0 lets a request omit `params` (issue 7.1): one mechanism (the codec's decodeParams)
// reads it as `{}` on both sides, so methods without required fields work and the others answer
// -32602 naming the first missing field. (A batch of such requests is answered as one array,
// entries answered like single requests, ACP-V2-TRANS-11.)
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore, serveAgent, silentLogger, type AgentDefinition } from '../../agent/src/index.js';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { JsonRpcPeer, StreamTransport } from '../src/rpc/index.js';
import { jsonLines } from '../../../test/support/json-lines.js';

const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const agentDef: AgentDefinition = { info: { name: 'omit', version: '0' }, prompt: async () => 'end_turn' };

/** serveAgent on in-memory pipes; `lines()` yields what the agent wrote, parsed. */
function rawAgent() {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  const conn = serveAgent(agentDef, new StreamTransport(toAgent, toClient), {
    store: new InMemorySessionStore(),
    logger: silentLogger,
  });
  cleanup.push(() => conn.close());
  const lines = jsonLines(toClient);
  return {
    write: (line: string) => toAgent.write(line + '\n'),
    next: () => lines.next(),
  };
}

describe('omitted params', () => {
  for (const version of [1, 2] as const) {
    it(`v${version} agent: session/list without params lists; session/prompt without params names the missing field; a batch of them answers as one array`, async () => {
      const a = rawAgent();
      const init =
        version === 2
          ? { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} }
          : { protocolVersion: 1, clientCapabilities: {} };
      a.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init }));
      expect((await a.next()).result.protocolVersion).toBe(version);

      a.write('{"jsonrpc":"2.0","id":1,"method":"session/list"}');
      expect(await a.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { sessions: [] } });

      a.write('{"jsonrpc":"2.0","id":2,"method":"session/prompt"}');
      const bad = await a.next();
      expect(bad.id).toBe(2);
      expect(bad.error.code).toBe(-32602);
      expect(bad.error.message).toBe("Invalid params: params: must have required property 'sessionId'");

      a.write(
        '[{"jsonrpc":"2.0","id":3,"method":"session/list"},{"jsonrpc":"2.0","id":4,"method":"session/list"},{"jsonrpc":"2.0","method":"session/cancel"}]',
      );
      // the notification gets no reply; the two requests' replies come back together
      expect(await a.next()).toEqual([
        { jsonrpc: '2.0', id: 3, result: { sessions: [] } },
        { jsonrpc: '2.0', id: 4, result: { sessions: [] } },
      ]);
      a.write('{"jsonrpc":"2.0","id":5,"method":"session/list"}');
      expect(await a.next()).toEqual({ jsonrpc: '2.0', id: 5, result: { sessions: [] } });
    });
  }

  it('client: an agent->client request without its required params gets -32602 naming the first missing field', async () => {
    const toAgent = new PassThrough();
    const toClient = new PassThrough();
    const agent = new JsonRpcPeer(new StreamTransport(toAgent, toClient));
    agent.onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }));
    const conn: ClientConnection = await connect({ transport: new StreamTransport(toClient, toAgent) });
    cleanup.push(() => conn.close());
    const e = await agent.request('session/request_permission').catch((x) => x);
    expect(e.code).toBe(-32602);
    expect(e.message).toBe("Invalid params: params: must have required property 'sessionId'");
  });
});

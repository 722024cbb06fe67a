// One prompt turn over a raw WebSocket (no client library in between), so a test controls the exact
// JSON-RPC messages, e.g. the prompt's `params._meta.traceparent` (the meta-propagation RFD).
import { connectWebSocketTransport } from '../../packages/protocol/src/rpc/websocket-transport.js';

export interface RawTurn {
  sessionId: string;
  stopReason: unknown;
}

/** initialize (v1), session/new, then session/prompt "hello" with `meta` as its `_meta`; closes the socket. */
export async function rawTurn(
  wsUrl: string,
  token: string | undefined,
  meta?: Record<string, unknown>,
): Promise<RawTurn> {
  const t = connectWebSocketTransport(wsUrl, token !== undefined ? { token } : {});
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  let closed: (reason: string) => void = () => undefined;
  const gone = new Promise<never>((_, reject) => (closed = (r) => reject(new Error(`closed: ${r}`))));
  t.start({
    onMessage: (m) => {
      const msg = m as Record<string, unknown>;
      if (typeof msg.id === 'number' && !('method' in msg)) waiting.get(msg.id)?.(msg);
    },
    onInvalidLine: () => undefined,
    onClose: (info) => closed(info.reason),
  });
  let next = 0;
  const request = async (method: string, params: object): Promise<Record<string, unknown>> => {
    const id = ++next;
    const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    t.send({ jsonrpc: '2.0', id, method, params });
    const m = await Promise.race([answer, gone]);
    if (m.error) throw new Error(`${method}: ${JSON.stringify(m.error)}`);
    return m.result as Record<string, unknown>;
  };
  try {
    await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const session = await request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const sessionId = String(session.sessionId);
    const result = await request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'hello' }],
      ...(meta ? { _meta: meta } : {}),
    });
    return { sessionId, stopReason: result.stopReason };
  } finally {
    t.close();
  }
}

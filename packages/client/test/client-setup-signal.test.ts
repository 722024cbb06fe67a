/**
 * `signal` on the session set-up calls: aborting `newSession` or `fork` while the agent has not
 * answered withdraws the request with `$/cancel_request` (ACP-ALL-CREQ-01) and rejects with -32800.
 * In process: a line-level agent that never answers `session/fork` or a `session/new` asking for a
 * cwd named `/hang`, and records every line it is sent.
 */
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../src/index.js';
import { AcpError } from '../../protocol/src/errors.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';

interface Line {
  id?: string | number;
  method?: string;
  params?: { requestId?: unknown; cwd?: string };
}

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A v1 agent advertising the unstable fork that never answers a fork or a session/new for `/hang`. */
async function start() {
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  const seen: Line[] = [];
  let n = 0;
  const reply = (id: unknown, result: unknown) =>
    fromAgent.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
  createInterface({ input: toAgent }).on('line', (text) => {
    const m = JSON.parse(text) as Line;
    seen.push(m);
    if (m.method === 'initialize')
      reply(m.id, { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { fork: {} } }, authMethods: [] });
    if (m.method === 'session/new' && m.params?.cwd !== '/hang') reply(m.id, { sessionId: `s${++n}` });
  });
  const conn = await connect({ transport: new StreamTransport(fromAgent, toAgent) });
  open.push(conn);
  return { conn, seen };
}

/**
 * The request of `method` that went unanswered and the `$/cancel_request`s naming it, read after a
 * session/new round trip proved that everything sent before it arrived.
 */
async function withdrawn(conn: ClientConnection, seen: Line[], method: string) {
  await conn.newSession({ cwd: '/tmp' });
  const request = seen.find((m) => m.method === method && (method === 'session/fork' || m.params?.cwd === '/hang'));
  return {
    request,
    cancels: seen.filter((m) => m.method === '$/cancel_request' && m.params?.requestId === request?.id),
  };
}

describe('session set-up calls honour signal', () => {
  it('fork({signal}): aborted while pending, session/fork is withdrawn and the call rejects with -32800', async () => {
    const { conn, seen } = await start();
    const session = await conn.newSession({ cwd: '/tmp' });
    const ac = new AbortController();
    const forked = session.fork({ signal: ac.signal });
    const settled = forked.then(
      () => undefined,
      (e: unknown) => e,
    );
    ac.abort(new Error('user pressed Ctrl-C'));
    const error = await settled;
    expect(error).toBeInstanceOf(AcpError);
    expect((error as AcpError).code).toBe(-32800);
    const { request, cancels } = await withdrawn(conn, seen, 'session/fork');
    expect(request?.id).toBeDefined();
    expect(cancels).toHaveLength(1);
  });

  it('newSession({signal}): the same for session/new', async () => {
    const { conn, seen } = await start();
    const ac = new AbortController();
    const pending = conn.newSession({ cwd: '/hang', signal: ac.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    ac.abort();
    expect(((await pending) as AcpError).code).toBe(-32800);
    const { request, cancels } = await withdrawn(conn, seen, 'session/new');
    expect(request?.id).toBeDefined();
    expect(cancels).toHaveLength(1);
  });
});

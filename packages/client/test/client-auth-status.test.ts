// The client runtime's side of the unstable auth/status_update, against a bare agent peer that
// sends what acp-kit's agent runtime never would: an update from an agent that did not advertise
// `auth.status` is a problem and no event; a malformed one is a problem naming the field; a broken
// account is skipped (the schema's skip-invalid-items), a state the client does not know reads as
// `unknown`. Order is proven by a round trip: each update is sent before the answer to a request.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthStatus } from '../../protocol/src/index.js';
import { connect, type ClientConnection, type ClientProblem } from '../src/index.js';
import { JsonRpcPeer, StreamTransport } from '../../protocol/src/rpc/index.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()?.();
});

/** A bare v`version` agent; `_send` makes it send each of its params' `updates` before answering. */
async function setup(version: 1 | 2, advertise: boolean) {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  const agent = new JsonRpcPeer(new StreamTransport(toAgent, toClient));
  const auth = advertise ? { status: {} } : {};
  agent.onRequest('initialize', () =>
    version === 1
      ? { protocolVersion: 1, agentCapabilities: { auth }, authMethods: [] }
      : {
          protocolVersion: 2,
          info: { name: 'bare', version: '0' },
          capabilities: { session: {}, auth },
          authMethods: [],
        },
  );
  agent.onRequest('_send', (params) => {
    for (const u of (params as { updates: unknown[] }).updates) agent.notify('auth/status_update', u);
    return {};
  });
  const problems: ClientProblem[] = [];
  const conn: ClientConnection = await connect({
    transport: new StreamTransport(toClient, toAgent),
    protocol: version,
    onProblem: (p) => problems.push(p),
  });
  cleanup.push(() => conn.close());
  const events: AuthStatus[] = [];
  conn.on('authStatus', (s) => events.push(s));
  return { conn, problems, events, send: (updates: unknown[]) => conn.extRequest('_send', { updates }) };
}

describe.each([1, 2] as const)('auth/status_update on the client, v%i', (v) => {
  it('applies well-formed updates, leniently: broken accounts skipped, unknown states read as unknown', async () => {
    const { conn, problems, events, send } = await setup(v, true);
    await send([
      { state: 'authenticated', accounts: [{ label: 'Key', active: true }, { active: true }] },
      { state: '_custom' },
    ]);
    expect(events).toEqual([
      { state: 'authenticated', accounts: [{ label: 'Key', active: true }] },
      { state: 'unknown' },
    ]);
    expect(conn.lastAuthStatus).toEqual({ state: 'unknown' });
    expect(problems).toEqual([]);
  });

  it('reports a malformed update, naming the field, and keeps the last good status', async () => {
    const { conn, problems, events, send } = await setup(v, true);
    await send([{ state: 'not_required' }, { accounts: [] }, { state: 7 }]);
    expect(events).toEqual([{ state: 'not_required' }]);
    expect(conn.lastAuthStatus).toEqual({ state: 'not_required' });
    expect(problems.map((p) => p.kind)).toEqual(['invalid-message', 'invalid-message']);
    expect(problems[0]?.message).toContain("must have required property 'state'");
    expect(problems[1]?.message).toContain('state');
  });

  it('an agent that does not advertise auth.status gets no event, only a problem', async () => {
    const { conn, problems, events, send } = await setup(v, false);
    await send([{ state: 'authenticated' }]);
    expect(events).toEqual([]);
    expect(conn.lastAuthStatus).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain('does not advertise auth.status');
  });
});

// Issue 9.1/9.2: "is this method available on this connection" is stated once
// (agentMethodSupported: version + capability). The client's `supports()` must say exactly what
// the agent runtime serves: for every neutral request, every version and the agent set-ups that
// change the answer (durable store or none, auth methods, logout), a raw request for the method
// is answered -32601 exactly when `supports()` says no.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { serveAgent, type AgentConnection, type ServeAgentOptions } from '../../agent/src/index.js';
import type { AgentDefinition } from '../../agent/src/types.js';
import { codecFor } from '../src/codec/index.js';
import type { AgentMethod } from '../src/model/methods.js';
import { JsonRpcPeer } from '../src/rpc/peer.js';
import { StreamTransport } from '../src/rpc/stream-transport.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';

const ALL: AgentMethod[] = [
  'authenticate',
  'logout',
  'session/new',
  'session/load',
  'session/resume',
  'session/list',
  'session/close',
  'session/delete',
  'session/set_mode',
  'session/set_config_option',
  'session/prompt',
  'tool_call/cancel',
  'terminal/cancel',
  'session/fork',
  'session/archive',
  'session/unarchive',
  'session/status',
  'session/set_title',
];

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function definition(extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { info: { name: 'supports-agent', version: '1.0.0' }, prompt: async () => 'end_turn', ...extra };
}

const setups: Array<{ name: string; def: Partial<AgentDefinition>; serve: ServeAgentOptions }> = [
  { name: 'in-memory store, no auth', def: {}, serve: {} },
  { name: 'no store (store: null)', def: {}, serve: { store: null } },
  {
    name: 'auth methods and logout',
    def: {
      authMethods: [{ methodId: 'key', name: 'API key' }],
      authenticate: () => undefined,
      logout: () => undefined,
    },
    serve: {},
  },
  {
    name: 'the unstable session methods',
    def: { sessionMethods: { fork: true, archive: true, status: true, title: true } },
    serve: {},
  },
  {
    name: 'the unstable session methods without a store (status and title only)',
    def: { sessionMethods: { fork: true, archive: true, status: true, title: true } },
    serve: { store: null },
  },
];

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

/** A bare JSON-RPC client (no acp-kit client runtime) initialized with `version`. */
async function rawClient(def: AgentDefinition, serve: ServeAgentOptions, version: 1 | 2): Promise<JsonRpcPeer> {
  const c2a = new PassThrough();
  const a2c = new PassThrough();
  const agent: AgentConnection = serveAgent(def, new StreamTransport(c2a, a2c), { logger: silent, ...serve });
  const peer = new JsonRpcPeer(new StreamTransport(a2c, c2a));
  open.push(async () => {
    peer.close({ reason: 'test over' });
    agent.close();
    await agent.closed;
  });
  const params = codecFor(version).encodeParams('initialize', { protocolVersion: version, clientCapabilities: {} });
  const res = await peer.request<{ protocolVersion: number }>('initialize', params);
  expect(res.protocolVersion).toBe(version);
  return peer;
}

async function answeredMethodNotFound(peer: JsonRpcPeer, wireMethod: string): Promise<boolean> {
  try {
    // params that no handler accepts: a served method answers -32602 (or another error), never -32601
    await peer.request(wireMethod, { sessionId: 'sess_unknown' });
    return false;
  } catch (e) {
    return (e as { code?: unknown }).code === -32601;
  }
}

describe.each([1, 2] as const)('v%i: ClientConnection.supports() matches what the agent serves', (version) => {
  it.each(setups)('$name', async ({ def, serve }) => {
    const pair: InProcessPair = await connectInProcess(definition(def), { version, serve });
    open.push(() => pair.close());
    const peer = await rawClient(definition(def), serve, version);
    const codec = codecFor(version);
    const mismatches: string[] = [];
    for (const method of ALL) {
      const wire = codec.wireMethod(method) ?? method;
      const served = !(await answeredMethodNotFound(peer, wire));
      if (served !== pair.conn.supports(method))
        mismatches.push(`${method} (${wire}): agent serves ${served}, supports() says ${pair.conn.supports(method)}`);
    }
    expect(mismatches).toEqual([]);
  });
});

describe('the version-dependent facts come from supports()', () => {
  it('v1: load exists only with a store; set_mode yes; the v2 cancels no', async () => {
    const durable = await connectInProcess(definition(), { version: 1 });
    open.push(() => durable.close());
    expect([
      durable.conn.supports('session/load'),
      durable.conn.supports('session/set_mode'),
      durable.conn.supports('tool_call/cancel'),
    ]).toEqual([true, true, false]);
    expect(durable.conn.replayMethod).toBe('session/load');
    const bare = await connectInProcess(definition(), { version: 1, serve: { store: null } });
    open.push(() => bare.close());
    expect([
      bare.conn.supports('session/load'),
      bare.conn.supports('session/resume'),
      bare.conn.supports('session/list'),
    ]).toEqual([false, false, false]);
    // v1 resume never replays (ACP-V1-RESUME-02): without load there is no way to replay
    expect(bare.conn.replayMethod).toBeUndefined();
  });

  it('v2: no load or set_mode; resume replays even without a store; the cancels yes', async () => {
    const pair = await connectInProcess(definition(), { version: 2, serve: { store: null } });
    open.push(() => pair.close());
    expect([
      pair.conn.supports('session/load'),
      pair.conn.supports('session/set_mode'),
      pair.conn.supports('tool_call/cancel'),
      pair.conn.supports('session/resume'),
    ]).toEqual([false, false, true, true]);
    expect(pair.conn.replayMethod).toBe('session/resume');
  });
});

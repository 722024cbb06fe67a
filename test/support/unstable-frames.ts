/**
 * Hand-built captures of the unstable surface (issue 26 item 3) for the inspector's tests: one
 * editor<->agent connection using every unstable session, auth, provider and MCP-over-ACP method
 * and update kind, and one proxy component's connection with its conductor (`proxy/initialize`,
 * `proxy/successor`). The shapes are the schemas' (`schema.unstable.json`, v1 and v2), and checked:
 * the session capture by the capture validator every inspector model runs (it validates the
 * unstable methods and kinds against the official schemas; the tests assert it finds nothing),
 * the proxy capture, which that validator does not judge, by the whole-schema tap
 * (test/support/schema-tap.ts; compiling it costs a second or two, so only there).
 */
import type { CaptureFrame } from '../../packages/tools/src/proxy/index.js';
import { A2E, E2A, frames, rpc } from './capture-builder.js';
import { createSchemaTap } from './schema-tap.js';

type Row = readonly [number, typeof E2A, unknown];

const text = (t: string) => ({ type: 'text', text: t });

/** An agent message chunk on the wire of `v` (v2 chunks carry their message id). */
function chunk(v: 1 | 2, messageId: string, t: string): Record<string, unknown> {
  return { sessionUpdate: 'agent_message_chunk', ...(v === 2 ? { messageId } : {}), content: text(t) };
}

/** The initialize exchange; the agent advertises the unstable session methods, auth status and providers. */
function initialize(v: 1 | 2, method: string, id: number): Row[] {
  const info = { name: 'unstable-test', version: '1.0.0' };
  const session = { fork: {}, archive: {}, status: {}, title: {} };
  const auth = { status: {} };
  return v === 2
    ? [
        [0, E2A, rpc.req(id, method, { protocolVersion: 2, info, capabilities: {} })],
        [1, A2E, rpc.ok(id, { protocolVersion: 2, info, capabilities: { session, auth, providers: {} } })],
      ]
    : [
        [0, E2A, rpc.req(id, method, { protocolVersion: 1, clientCapabilities: {} })],
        [
          1,
          A2E,
          rpc.ok(id, { protocolVersion: 1, agentCapabilities: { sessionCapabilities: session, auth, providers: {} } }),
        ],
      ];
}

/** The session methods: a title, a status, a fork, an archive and an unarchive, each answered. */
function sessionMethods(v: 1 | 2): Row[] {
  const status = v === 2 ? { status: 'open', state: { state: 'idle', stopReason: 'end_turn' } } : { status: 'open' };
  return [
    [2, E2A, rpc.req(2, 'session/new', v === 2 ? { cwd: '/work/app' } : { cwd: '/work/app', mcpServers: [] })],
    [3, A2E, rpc.ok(2, { sessionId: 's1' })],
    [4, E2A, rpc.req(3, 'session/set_title', { sessionId: 's1', title: 'Refactor the parser' })],
    [5, A2E, rpc.ok(3, { title: 'Refactor the parser' })],
    [6, E2A, rpc.req(4, 'session/status', { sessionId: 's1' })],
    [7, A2E, rpc.ok(4, status)],
    [8, E2A, rpc.req(5, 'session/fork', { sessionId: 's1', cwd: '/work/app' })],
    [9, A2E, rpc.ok(5, { sessionId: 's1-fork' })],
    [10, E2A, rpc.req(6, 'session/archive', { sessionId: 's1-fork' })],
    [11, A2E, rpc.ok(6, {})],
    [12, E2A, rpc.req(7, 'session/archive', { sessionId: 's1' })],
    [13, A2E, rpc.ok(7, {})],
    [14, E2A, rpc.req(8, 'session/unarchive', { sessionId: 's1' })],
    [15, A2E, rpc.ok(8, {})],
  ];
}

/** Auth status (asked, then changed), the providers listed, one set and disabled. */
function authAndProviders(): Row[] {
  const providers = [
    {
      providerId: 'main',
      supported: ['anthropic'],
      required: true,
      current: { apiType: 'anthropic', baseUrl: 'https://api.anthropic.com' },
    },
    { providerId: 'openai', supported: ['openai'], required: false, current: null },
  ];
  return [
    [20, E2A, rpc.req(10, 'auth/status', {})],
    [21, A2E, rpc.ok(10, { state: 'authenticated', accounts: [{ label: 'Claude Max', active: true }] })],
    [22, A2E, rpc.note('auth/status_update', { state: 'unauthenticated' })],
    [23, E2A, rpc.req(11, 'providers/list', {})],
    [24, A2E, rpc.ok(11, { providers })],
    [
      25,
      E2A,
      rpc.req(12, 'providers/set', {
        providerId: 'openai',
        apiType: 'openai',
        baseUrl: 'https://llm.example.test/v1',
        headers: { Authorization: 'Bearer sk-secret-value' },
      }),
    ],
    [26, A2E, rpc.ok(12, {})],
    [27, E2A, rpc.req(13, 'providers/disable', { providerId: 'openai' })],
    [28, A2E, rpc.ok(13, {})],
  ];
}

/**
 * MCP over ACP: the agent calls a tool of the client's server (answered), lists tools (an MCP
 * error). (The provider's progress notification is left out: the tap reads `mcp/message` as
 * handled by the client only, so it cannot check one the client sends.)
 */
function mcpOverAcp(): Row[] {
  return [
    [
      30,
      A2E,
      rpc.req(100, 'mcp/message', {
        serverId: 'srv-files',
        requestId: 'call-7',
        method: 'tools/call',
        params: { name: 'read', arguments: { path: 'a.txt' } },
      }),
    ],
    [32, E2A, rpc.ok(100, { result: { content: [text('hello')] } })],
    [33, A2E, rpc.req(101, 'mcp/message', { serverId: 'srv-files', requestId: 'list-1', method: 'tools/list' })],
    [34, E2A, rpc.ok(101, { error: { code: -32601, message: 'Method not found' } })],
  ];
}

/**
 * The unstable update kinds on session `s1`: a plan shown then removed, a subagent announced
 * that works (its own updates carry its id) and finishes, and a session message from it, upserted
 * then streamed.
 */
function updates(v: 1 | 2): Row[] {
  const plan = {
    type: 'items',
    planId: 'p1',
    entries: [{ content: 'read the docs', priority: 'high', status: 'pending' }],
  };
  const done = { state: 'idle', stopReason: 'end_turn' };
  return [
    [40, A2E, rpc.update('s1', { sessionUpdate: 'plan_update', plan })],
    [41, A2E, rpc.update('s1', { sessionUpdate: 'plan_removed', planId: 'p1' })],
    [
      42,
      A2E,
      rpc.update('s1', {
        sessionUpdate: 'subagent_update',
        sessionId: 'sub-1',
        title: 'Search the docs',
        state: { state: 'running' },
      }),
    ],
    [43, A2E, rpc.update('sub-1', chunk(v, 'sm-a', 'found 3 hits'))],
    [44, A2E, rpc.update('s1', { sessionUpdate: 'subagent_update', sessionId: 'sub-1', state: done })],
    [
      45,
      A2E,
      rpc.update('s1', {
        sessionUpdate: 'session_message',
        messageId: 'msg-1',
        senderSessionId: 'sub-1',
        recipientSessionId: 's1',
        content: [text('Done: 3 hits')],
      }),
    ],
    [
      46,
      A2E,
      rpc.update('s1', { sessionUpdate: 'session_message_chunk', messageId: 'msg-1', content: text(' in docs/') }),
    ],
  ];
}

/** Checks each message against the unstable schema of `v` (editor frames as the client's, agent frames as the agent's). */
function checked(v: 1 | 2, rows: Row[]): CaptureFrame[] {
  const tap = createSchemaTap(v, 'unstable');
  for (const [, dir, m] of rows) (dir === E2A ? tap.fromClient : tap.fromAgent)(m);
  tap.assertAllValid();
  return frames(rows);
}

/**
 * An editor<->agent capture of every unstable method and update kind between client and agent
 * (a model of it must report no violation: that is its schema check).
 */
export function unstableSessionFrames(v: 1 | 2): CaptureFrame[] {
  return frames([
    ...initialize(v, 'initialize', 1),
    ...sessionMethods(v),
    ...authAndProviders(),
    ...mcpOverAcp(),
    ...updates(v),
  ]);
}

/**
 * A proxy component's connection to its conductor (the conductor on the editor side): the
 * conductor initializes it as a proxy, the proxy forwards a prompt to its successor, the conductor
 * delivers the successor's update and answer.
 */
export function proxyComponentFrames(v: 1 | 2): CaptureFrame[] {
  const prompt = { sessionId: 's1', prompt: [text('hi')] };
  return checked(v, [
    ...initialize(v, 'proxy/initialize', 1),
    [2, A2E, rpc.req(50, 'proxy/successor', { method: 'session/prompt', params: prompt })],
    [
      3,
      E2A,
      rpc.note('proxy/successor', {
        method: 'session/update',
        params: { sessionId: 's1', update: chunk(v, 'm1', 'Hello from downstream') },
      }),
    ],
    [4, E2A, rpc.ok(50, { stopReason: 'end_turn' })],
  ]);
}

/**
 * An in-process agent/client pair for protocol tests: `serveAgent` (the real agent runtime) and
 * `connect` (the real client runtime) over two in-memory streams, with the same newline-delimited
 * JSON framing as stdio, every message recorded in wire order and checked against the official
 * schema of the version spoken. Imports `src/`, not `dist/`, and spawns nothing: use a real process
 * only where the behaviour under test is about processes or pipes.
 */
import { PassThrough } from 'node:stream';
import {
  serveAgent,
  type AgentConnection,
  type AgentLogger,
  type ServeAgentOptions,
} from '../../packages/agent/src/index.js';
import type { AgentDefinition } from '../../packages/agent/src/types.js';
import {
  connect,
  type ClientConnection,
  type ClientOptions,
  type ClientProblem,
} from '../../packages/client/src/index.js';
import { JsonRpcPeer } from '../../packages/protocol/src/rpc/peer.js';
import { StreamTransport } from '../../packages/protocol/src/rpc/stream-transport.js';
import { createSchemaTap, type SchemaTap } from './schema-tap.js';

/** One message on the wire, seen from the client: `out` = client -> agent. */
export interface WireEntry {
  dir: 'in' | 'out';
  msg: { id?: number | string | null; method?: string; params?: any; result?: any; error?: any };
  at: number;
}

export interface InProcessPair {
  /** The client's connection (already initialized). */
  conn: ClientConnection;
  /** The agent runtime's side. */
  agent: AgentConnection;
  /** Schema check of every message (tapped on the client side only, so each is checked once). */
  tap: SchemaTap;
  wire: WireEntry[];
  problems: ClientProblem[];
  /** What the agent logged (warn/error/info lines, `level: message`), standing in for its stderr. */
  log: string[];
  /** Closes the client and waits until the agent runtime has closed every session. */
  close(): Promise<void>;
}

export interface InProcessOptions {
  /** Protocol version the client asks for; the tap checks against this version's schema. */
  version: 1 | 2;
  /** Client options (e.g. a permission policy); `transport`, `protocol` and `tap` are set here. */
  client?: Omit<ClientOptions, 'protocol' | 'tap'>;
  /** Agent runtime options (store, cancel timeout...); the logger defaults to one feeding `log`. */
  serve?: ServeAgentOptions;
  /** Which schema file the tap checks against (default `stable`; `unstable` for the unstable methods). */
  schema?: 'stable' | 'unstable';
}

/** Serves `definition` in this process and connects a client to it. */
export async function connectInProcess(definition: AgentDefinition, options: InProcessOptions): Promise<InProcessPair> {
  const c2a = new PassThrough();
  const a2c = new PassThrough();
  const log: string[] = [];
  const logger: AgentLogger = {
    debug: () => undefined,
    info: (m) => log.push(`info: ${m}\n`),
    warn: (m) => log.push(`warn: ${m}\n`),
    error: (m) => log.push(`error: ${m}\n`),
  };
  const agent = serveAgent(definition, new StreamTransport(c2a, a2c), { logger, ...options.serve });
  const tap = createSchemaTap(options.version, options.schema);
  const wire: WireEntry[] = [];
  const problems: ClientProblem[] = [];
  let conn: ClientConnection;
  try {
    conn = await connect({
      ...options.client,
      transport: new StreamTransport(a2c, c2a),
      protocol: options.version,
      onProblem: (p) => {
        problems.push(p);
        options.client?.onProblem?.(p);
      },
      tap: {
        sent: (m) => (wire.push({ dir: 'out', msg: m as WireEntry['msg'], at: Date.now() }), tap.clientSide.sent(m)),
        received: (m) => (
          wire.push({ dir: 'in', msg: m as WireEntry['msg'], at: Date.now() }),
          tap.clientSide.received(m)
        ),
      },
    });
  } catch (e) {
    agent.close();
    throw e;
  }
  return {
    conn,
    agent,
    tap,
    wire,
    problems,
    log,
    async close() {
      await conn.close();
      agent.close();
      await agent.closed;
    },
  };
}

/** An agent runtime driven by a raw JSON-RPC peer (for tests that write what a client runtime would refuse to send). */
export interface RawPeerPair {
  /** the client side: a bare peer, not the client runtime */
  client: JsonRpcPeer;
  conn: AgentConnection;
  /** the stream into the agent, for raw lines */
  toAgent: PassThrough;
  /** every `session/update` payload's `update`, in order */
  updates: any[];
  /** schema check of what the agent sent and received */
  tap: SchemaTap;
  /** everything the agent sent, in order */
  sent: any[];
  /** closes the connection and waits until it is closed */
  close(): Promise<void>;
}

/** `serveAgent(definition)` over in-memory streams with a raw {@link JsonRpcPeer} as the client. */
export function serveRawPeer(
  definition: AgentDefinition,
  version: 1 | 2,
  options: Omit<ServeAgentOptions, 'peer'> = {},
): RawPeerPair {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  const tap = createSchemaTap(version);
  const sent: any[] = [];
  const recording = {
    sent: (m: object) => {
      sent.push(m);
      tap.agentSide.sent(m);
    },
    received: (m: unknown) => tap.agentSide.received(m),
  };
  const conn = serveAgent(definition, new StreamTransport(toAgent, toClient), { ...options, peer: { tap: recording } });
  const client = new JsonRpcPeer(new StreamTransport(toClient, toAgent));
  const updates: any[] = [];
  client.onNotification('session/update', (p: any) => updates.push(p.update));
  return {
    client,
    conn,
    toAgent,
    updates,
    tap,
    sent,
    close: async () => {
      conn.close();
      await conn.closed;
    },
  };
}

import { codecFor } from '@acp-kit/protocol';
import { AcpError } from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';
import type { ClientCapabilities } from '@acp-kit/protocol';
import { lifecycleFor } from '@acp-kit/agent/internal';
import { SESSION_LOCKED } from '@acp-kit/agent';
import { isStorableSessionId } from '../store/postgres/storable-id.js';
import { isWireRequestId, requestIdKey } from '@acp-kit/protocol/rpc';
import type { CloseInfo, Transport } from '@acp-kit/protocol/rpc';
import type { AgentHost, AgentHostContext, AgentHostFactory } from '../server.js';
import { type Follower } from './follower.js';
import { memoryTransportPair } from './memory-transport.js';
import type { FollowerSetup } from './owner-link.js';

/** What a connection needs from its instance ({@link ClusterNode}). */
export interface ClusterInstance {
  readonly instanceId: string;
  /**
   * Makes sure a session a client opens is run here or followed: `owner` this instance (the lease
   * is held for the connection until {@link releaseFor}) or the live instance that runs it.
   */
  claimFor(namespace: string, sessionId: string): Promise<{ mine: true } | { mine: false; owner: string }>;
  releaseFor(namespace: string, sessionId: string): void;
  /** A follower for a client of this instance on a session another instance runs. */
  follower(namespace: string, sessionId: string, owner: string, setup: FollowerSetup, caps: ClientCapabilities, send: (m: object) => void, whenWritable: () => Promise<void>): Follower;
  forget(namespace: string, f: Follower): void;
  log(line: string): void;
  /** What a client is answered for a failure on this instance's cluster path (a database error names the store). */
  clientError(e: unknown): AcpError;
}

/** Session-addressed requests a follower carries to the owner. */
const FORWARDED = new Set(['session/prompt', 'session/set_config_option', 'session/set_mode', 'session/delete', 'tool_call/cancel', 'terminal/cancel']);
const OPENING = new Set(['session/load', 'session/resume']);

/**
 * One client connection of a cluster instance: it stands between the client and this instance's
 * agent. Sessions run here (this instance holds their lease) go to the agent as usual; a session
 * another live instance runs is followed ({@link Follower}): answered from the table, its requests
 * carried to the owner. Messages are handled in arrival order.
 */
export function clusterConnection(node: ClusterInstance, inner: AgentHostFactory, client: Transport, ctx: AgentHostContext): AgentHost {
  const [toAgent, agentSide] = memoryTransportPair();
  const namespace = ctx.owner;
  const agent = inner(agentSide, ctx);
  let version: number | undefined;
  let caps: ClientCapabilities = {};
  /** sessions whose lease this connection holds */
  const held = new Set<string>();
  const followers = new Map<string, Follower>();
  /** request id key -> what to do with the agent's answer */
  const watched = new Map<string, (m: Record<string, unknown>) => Promise<void> | void>();
  let chain: Promise<void> = Promise.resolve();
  let ended = false;

  const reply = (id: unknown, answer: { result: unknown } | { error: unknown }): void => client.send({ jsonrpc: '2.0', id, ...answer });
  const errorOf = (e: unknown): { code: number; message: string; data?: unknown } => node.clientError(e).toJSON();

  const hold = (sessionId: string): void => {
    held.add(sessionId);
  };
  const release = (sessionId: string): void => {
    if (held.delete(sessionId)) node.releaseFor(namespace, sessionId);
  };

  const fromClient = async (m: unknown): Promise<void> => {
    if (!isObj(m)) return toAgent.send(Object(m));
    // a client's answer to a follower's permission question
    if (!('method' in m) && 'id' in m) {
      for (const f of followers.values()) if (f.takeResponse(m)) return;
      return toAgent.send(m);
    }
    const method = typeof m.method === 'string' ? m.method : '';
    const params = isObj(m.params) ? m.params : {};
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    // an id JSON-RPC does not allow: the agent refuses it (-32600, id null) before anything here uses it
    if ('id' in m && !isWireRequestId(m.id)) return toAgent.send(m);
    const isRequest = 'id' in m;
    if (method === 'initialize' && isRequest) {
      // the neutral capabilities, whichever version's field set the client sent (a follower encodes for v2 only)
      try {
        const decoded = codecFor(params.protocolVersion === 1 ? 1 : 2).decodeParams('initialize', params);
        if (isObj(decoded.clientCapabilities)) caps = decoded.clientCapabilities;
      } catch {
        // the agent answers a malformed initialize; the follower then encodes for a client without capabilities
      }
      watched.set(requestIdKey(m.id), (r) => {
        if (isObj(r.result) && typeof r.result.protocolVersion === 'number') version = r.result.protocolVersion;
      });
      return toAgent.send(m);
    }
    const followed = sessionId !== undefined ? followers.get(sessionId) : undefined;
    if (followed && sessionId !== undefined) {
      if (method === 'session/cancel' && !isRequest) return followed.notify(method, params);
      if (method === 'session/close' && isRequest) {
        followers.delete(sessionId);
        node.forget(namespace, followed);
        await followed.close();
        return reply(m.id, { result: {} });
      }
      if (FORWARDED.has(method) && isRequest) {
        const id = m.id;
        followed.request(method, params).then(
          (result) => {
            if (method === 'session/delete') {
              followers.delete(sessionId);
              node.forget(namespace, followed);
              void followed.close();
            }
            reply(id, { result });
          },
          (e: unknown) => reply(id, { error: errorOf(e) }),
        );
        return;
      }
      if (OPENING.has(method) && isRequest) {
        // already followed by this connection: a second resume replays again through a fresh follower
        followers.delete(sessionId);
        node.forget(namespace, followed);
        await followed.close();
      }
    }
    // an id PostgreSQL cannot hold names no session: no lease to take, the agent answers it unknown
    if (OPENING.has(method) && isRequest && sessionId !== undefined && !held.has(sessionId) && isStorableSessionId(sessionId)) {
      let claim: Awaited<ReturnType<ClusterInstance['claimFor']>>;
      try {
        claim = await node.claimFor(namespace, sessionId);
      } catch (e) {
        return reply(m.id, { error: errorOf(e) });
      }
      if (claim.mine) {
        hold(sessionId);
        // given back when the agent refuses it
        watched.set(requestIdKey(m.id), (r) => {
          if ('error' in r) release(sessionId);
        });
        return toAgent.send(m);
      }
      if (version !== 2) {
        return reply(m.id, {
          error: new AcpError(SESSION_LOCKED, `session ${sessionId} is open on instance ${claim.owner}; only protocol v2 clients can share a session across instances: close it there first, or connect with v2`, { sessionId, owner: claim.owner }).toJSON(),
        });
      }
      return openFollower(m.id, method === 'session/load' ? 'load' : 'resume', sessionId, params, claim.owner);
    }
    if (method === 'session/new' && isRequest) {
      watched.set(requestIdKey(m.id), async (r) => {
        const id = isObj(r.result) && typeof r.result.sessionId === 'string' ? r.result.sessionId : undefined;
        if (id === undefined) return;
        // a new id is free: the lease is ours before the client can hand the id to another instance
        await node.claimFor(namespace, id).then(
          (c) => (c.mine ? hold(id) : node.log(`session/new ${id}: lease held by ${c.owner}?`)),
          (e: Error) => node.log(`session/new ${id}: could not take its lease: ${e.message}`),
        );
      });
    } else if (method === 'session/close' && isRequest && sessionId !== undefined) {
      watched.set(requestIdKey(m.id), (r) => {
        if ('result' in r) release(sessionId);
      });
    }
    toAgent.send(m);
  };

  const openFollower = async (id: unknown, kind: 'load' | 'resume', sessionId: string, params: Record<string, unknown>, owner: string): Promise<void> => {
    let replay: boolean;
    try {
      replay = lifecycleFor(2).replays(kind, params as never);
    } catch (e) {
      return reply(id, { error: errorOf(e) });
    }
    const setup: FollowerSetup = {
      cwd: typeof params.cwd === 'string' ? params.cwd : '',
      additionalDirectories: Array.isArray(params.additionalDirectories) ? params.additionalDirectories : [],
      mcpServers: Array.isArray(params.mcpServers) ? params.mcpServers : [],
    };
    const f = node.follower(namespace, sessionId, owner, setup, caps, (msg) => client.send(msg), () => client.whenWritable());
    try {
      const result = await f.open(replay);
      followers.set(sessionId, f);
      reply(id, { result });
      f.start();
    } catch (e) {
      node.forget(namespace, f);
      void f.close();
      reply(id, { error: errorOf(e) });
    }
  };

  client.start({
    onMessage: (m) => {
      chain = chain.then(() => fromClient(m)).catch((e: Error) => node.log(`connection ${ctx.connectionId}: ${e.stack ?? e.message}`));
    },
    onInvalidLine: (i) => client.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${i.error.message}` } }),
    onClose: () => end(),
  });
  toAgent.start({
    onMessage: (m) => {
      if (isObj(m) && !('method' in m) && 'id' in m) {
        const key = requestIdKey(m.id);
        const w = watched.get(key);
        if (w) {
          watched.delete(key);
          // the answer waits for the bookkeeping (a new session's lease), then goes out in order
          chain = chain.then(async () => {
            await w(m);
            client.send(m);
          });
          return;
        }
      }
      client.send(m as object);
    },
    onInvalidLine: () => undefined,
    onClose: (info: CloseInfo) => {
      client.close({ reason: info.reason });
      end();
    },
  });

  const end = (): void => {
    if (ended) return;
    ended = true;
    for (const f of followers.values()) {
      node.forget(namespace, f);
      void f.close();
    }
    followers.clear();
    toAgent.close({ reason: 'the client connection ended' });
    agent.close();
    for (const s of [...held]) release(s);
  };

  return {
    async shutdown(graceMs) {
      for (const f of followers.values()) {
        node.forget(namespace, f);
        await f.close();
      }
      followers.clear();
      await agent.shutdown(graceMs);
      await chain.catch(() => undefined);
      await client.flush();
      client.close({ reason: 'the server shut down' });
      end();
    },
    close() {
      end();
      client.close({ reason: 'closed' });
    },
  };
}

import { codecFor, AcpError, type ClientCapabilities } from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';
import { lifecycleFor } from '@acp-kit/agent/internal';
import { SESSION_LOCKED } from '@acp-kit/agent';
import { isStorableSessionId } from '../store/postgres/storable-id.js';
import { isWireRequestId, requestIdKey, type CloseInfo, type Transport } from '@acp-kit/protocol/rpc';
import type { AgentHost, AgentHostContext, AgentHostFactory } from '../server.js';
import { type Follower } from './follower.js';
import { memoryTransportPair } from './memory-transport.js';
import type { FollowerSetup } from './owner-link.js';
import { withLastTurn, type LastTurn } from './last-turn.js';

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
  follower(
    namespace: string,
    sessionId: string,
    owner: string,
    setup: FollowerSetup,
    caps: ClientCapabilities,
    send: (m: object) => void,
    whenWritable: () => Promise<void>,
  ): Follower;
  forget(namespace: string, f: Follower): void;
  /** How the session's last turn ended, as stored (for the resume snapshot's `_meta`). */
  lastTurn(namespace: string, sessionId: string): Promise<LastTurn | undefined>;
  log(line: string): void;
  /** What a client is answered for a failure on this instance's cluster path (a database error names the store). */
  clientError(e: unknown): AcpError;
}

/** Session-addressed requests a follower carries to the owner. */
const FORWARDED = new Set([
  'session/prompt',
  'session/set_config_option',
  'session/set_mode',
  'session/delete',
  'tool_call/cancel',
  'terminal/cancel',
  // unstable: the owner has the session in memory (its status, its attached clients for a title,
  // the run an archive must close first)
  'session/status',
  'session/set_title',
  'session/archive',
]);
const OPENING = new Set(['session/load', 'session/resume']);

type ClientMessage = Record<string, unknown>;

/**
 * One client connection of a cluster instance: it stands between the client and this instance's
 * agent. Sessions run here (this instance holds their lease) go to the agent as usual; a session
 * another live instance runs is followed ({@link Follower}): answered from the table, its requests
 * carried to the owner. Messages are handled in arrival order.
 */
export function clusterConnection(
  node: ClusterInstance,
  inner: AgentHostFactory,
  client: Transport,
  ctx: AgentHostContext,
): AgentHost {
  return new ClusterConnection(node, inner, client, ctx);
}

class ClusterConnection implements AgentHost {
  private readonly toAgent: Transport;
  private readonly namespace: string;
  private readonly agent: AgentHost;
  private version: number | undefined;
  private caps: ClientCapabilities = {};
  /** sessions whose lease this connection holds */
  private readonly held = new Set<string>();
  private readonly followers = new Map<string, Follower>();
  /** request id key -> what to do with the agent's answer */
  private readonly watched = new Map<string, (m: Record<string, unknown>) => Promise<void> | void>();
  private chain: Promise<void> = Promise.resolve();
  /** sessions being restored by the agent here -> how their last turn ended (for the snapshot) */
  private readonly restoring = new Map<string, LastTurn | undefined>();
  private ended = false;

  constructor(
    private readonly node: ClusterInstance,
    inner: AgentHostFactory,
    private readonly client: Transport,
    ctx: AgentHostContext,
  ) {
    const [toAgent, agentSide] = memoryTransportPair();
    this.toAgent = toAgent;
    this.namespace = ctx.owner;
    this.agent = inner(agentSide, ctx);
    client.start({
      onMessage: (m) => {
        this.chain = this.chain
          .then(() => this.fromClient(m))
          .catch((e: Error) => node.log(`connection ${ctx.connectionId}: ${e.stack ?? e.message}`));
      },
      onInvalidLine: (i) =>
        client.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${i.error.message}` } }),
      onClose: () => this.end(),
    });
    toAgent.start({
      onMessage: (m) => this.fromAgent(m),
      onInvalidLine: () => undefined,
      onClose: (info: CloseInfo) => {
        client.close({ reason: info.reason });
        this.end();
      },
    });
  }

  private reply(id: unknown, answer: { result: unknown } | { error: unknown }): void {
    this.client.send({ jsonrpc: '2.0', id, ...answer });
  }

  private errorOf(e: unknown): { code: number; message: string; data?: unknown } {
    return this.node.clientError(e).toJSON();
  }

  private release(sessionId: string): void {
    if (this.held.delete(sessionId)) this.node.releaseFor(this.namespace, sessionId);
  }

  private forgetFollower(sessionId: string, f: Follower): void {
    this.followers.delete(sessionId);
    this.node.forget(this.namespace, f);
  }

  private async fromClient(m: unknown): Promise<void> {
    if (!isObj(m)) return this.toAgent.send(Object(m));
    // a client's answer to a follower's permission question
    if (!('method' in m) && 'id' in m) {
      for (const f of this.followers.values()) if (f.takeResponse(m)) return;
      return this.toAgent.send(m);
    }
    const method = typeof m.method === 'string' ? m.method : '';
    const params = isObj(m.params) ? m.params : {};
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    // an id JSON-RPC does not allow: the agent refuses it (-32600, id null) before anything here uses it
    if ('id' in m && !isWireRequestId(m.id)) return this.toAgent.send(m);
    const isRequest = 'id' in m;
    if (method === 'initialize' && isRequest) return this.initialize(m, params);
    const followed = sessionId !== undefined ? this.followers.get(sessionId) : undefined;
    if (followed && sessionId !== undefined && (await this.toFollower(m, method, params, sessionId, followed))) return;
    // an id PostgreSQL cannot hold names no session: no lease to take, the agent answers it unknown
    if (
      OPENING.has(method) &&
      isRequest &&
      sessionId !== undefined &&
      !this.held.has(sessionId) &&
      isStorableSessionId(sessionId)
    ) {
      return this.open(m, method, params, sessionId);
    }
    if (method === 'session/new' && isRequest) this.watchNewSession(m.id);
    else if (method === 'session/close' && isRequest && sessionId !== undefined) {
      this.watched.set(requestIdKey(m.id), (r) => {
        if ('result' in r) this.release(sessionId);
      });
    }
    this.toAgent.send(m);
  }

  private initialize(m: ClientMessage, params: Record<string, unknown>): void {
    // the neutral capabilities, whichever version's field set the client sent (a follower encodes for v2 only)
    try {
      const decoded = codecFor(params.protocolVersion === 1 ? 1 : 2).decodeParams('initialize', params);
      if (isObj(decoded.clientCapabilities)) this.caps = decoded.clientCapabilities;
    } catch {
      // the agent answers a malformed initialize; the follower then encodes for a client without capabilities
    }
    this.watched.set(requestIdKey(m.id), (r) => {
      if (isObj(r.result) && typeof r.result.protocolVersion === 'number') this.version = r.result.protocolVersion;
    });
    this.toAgent.send(m);
  }

  /** A message for a session this connection follows; true when it was handled here. */
  private async toFollower(
    m: ClientMessage,
    method: string,
    params: Record<string, unknown>,
    sessionId: string,
    followed: Follower,
  ): Promise<boolean> {
    const isRequest = 'id' in m;
    if (method === 'session/cancel' && !isRequest) {
      followed.notify(method, params);
      return true;
    }
    if (method === 'session/close' && isRequest) {
      this.forgetFollower(sessionId, followed);
      await followed.close();
      this.reply(m.id, { result: {} });
      return true;
    }
    if (FORWARDED.has(method) && isRequest) {
      const id = m.id;
      followed.request(method, params).then(
        (result) => {
          // both end the session on the owner: this connection no longer follows it
          if (method === 'session/delete' || method === 'session/archive') {
            this.forgetFollower(sessionId, followed);
            void followed.close();
          }
          this.reply(id, { result });
        },
        (e: unknown) => this.reply(id, { error: this.errorOf(e) }),
      );
      return true;
    }
    if (OPENING.has(method) && isRequest) {
      // already followed by this connection: a second resume replays again through a fresh follower
      this.forgetFollower(sessionId, followed);
      await followed.close();
    }
    return false;
  }

  /** session/load or resume: run here when this instance takes the lease, else followed (v2 only). */
  private async open(
    m: ClientMessage,
    method: string,
    params: Record<string, unknown>,
    sessionId: string,
  ): Promise<void> {
    let claim: Awaited<ReturnType<ClusterInstance['claimFor']>>;
    try {
      claim = await this.node.claimFor(this.namespace, sessionId);
    } catch (e) {
      return this.reply(m.id, { error: this.errorOf(e) });
    }
    if (claim.mine) {
      this.held.add(sessionId);
      // the agent's v2 snapshot says `idle` only: the stored end of the last turn goes in its _meta
      if (this.version === 2)
        this.restoring.set(sessionId, await this.node.lastTurn(this.namespace, sessionId).catch(() => undefined));
      // given back when the agent refuses it
      this.watched.set(requestIdKey(m.id), (r) => {
        this.restoring.delete(sessionId);
        if ('error' in r) this.release(sessionId);
      });
      return this.toAgent.send(m);
    }
    if (this.version !== 2) {
      return this.reply(m.id, {
        error: new AcpError(
          SESSION_LOCKED,
          `session ${sessionId} is open on instance ${claim.owner}; only protocol v2 clients can share a session across instances: close it there first, or connect with v2`,
          { sessionId, owner: claim.owner },
        ).toJSON(),
      });
    }
    return this.openFollower(m.id, method === 'session/load' ? 'load' : 'resume', sessionId, params, claim.owner);
  }

  private watchNewSession(requestId: unknown): void {
    this.watched.set(requestIdKey(requestId), async (r) => {
      const id = isObj(r.result) && typeof r.result.sessionId === 'string' ? r.result.sessionId : undefined;
      if (id === undefined) return;
      // a new id is free: the lease is ours before the client can hand the id to another instance
      await this.node.claimFor(this.namespace, id).then(
        (c) => (c.mine ? this.held.add(id) : this.node.log(`session/new ${id}: lease held by ${c.owner}?`)),
        (e: Error) => this.node.log(`session/new ${id}: could not take its lease: ${e.message}`),
      );
    });
  }

  private async openFollower(
    id: unknown,
    kind: 'load' | 'resume',
    sessionId: string,
    params: Record<string, unknown>,
    owner: string,
  ): Promise<void> {
    let replay: boolean;
    try {
      replay = lifecycleFor(2).replays(kind, params as never);
    } catch (e) {
      return this.reply(id, { error: this.errorOf(e) });
    }
    const setup: FollowerSetup = {
      cwd: typeof params.cwd === 'string' ? params.cwd : '',
      additionalDirectories: Array.isArray(params.additionalDirectories) ? params.additionalDirectories : [],
      mcpServers: Array.isArray(params.mcpServers) ? params.mcpServers : [],
    };
    const f = this.node.follower(
      this.namespace,
      sessionId,
      owner,
      setup,
      this.caps,
      (msg) => this.client.send(msg),
      () => this.client.whenWritable(),
    );
    try {
      const result = await f.open(replay);
      this.followers.set(sessionId, f);
      this.reply(id, { result });
      f.start();
    } catch (e) {
      this.node.forget(this.namespace, f);
      void f.close();
      this.reply(id, { error: this.errorOf(e) });
    }
  }

  private fromAgent(m: unknown): void {
    if (this.restoring.size > 0 && isObj(m) && m.method === 'session/update') m = this.snapshot(m);
    if (isObj(m) && !('method' in m) && 'id' in m) {
      const key = requestIdKey(m.id);
      const w = this.watched.get(key);
      if (w) {
        this.watched.delete(key);
        // the answer waits for the bookkeeping (a new session's lease), then goes out in order
        this.chain = this.chain.then(async () => {
          await w(m);
          this.client.send(m);
        });
        return;
      }
    }
    this.client.send(Object(m));
  }

  /**
   * The first `state_update` of a session being restored is its snapshot (a replay has none: they
   * are live rows); an idle one without a stop reason gets the stored end of the last turn.
   */
  private snapshot(m: Record<string, unknown>): Record<string, unknown> {
    const params = isObj(m.params) ? m.params : {};
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : '';
    const update = params.update;
    if (!this.restoring.has(sessionId) || !isObj(update) || update.sessionUpdate !== 'state_update') return m;
    const turn = this.restoring.get(sessionId);
    this.restoring.delete(sessionId);
    if (update.state !== 'idle' || update.stopReason != null) return m;
    return { ...m, params: { ...params, update: withLastTurn(update, turn) } };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const f of this.followers.values()) {
      this.node.forget(this.namespace, f);
      void f.close();
    }
    this.followers.clear();
    this.toAgent.close({ reason: 'the client connection ended' });
    this.agent.close();
    for (const s of [...this.held]) this.release(s);
  }

  async shutdown(graceMs: number): Promise<void> {
    for (const f of this.followers.values()) {
      this.node.forget(this.namespace, f);
      await f.close();
    }
    this.followers.clear();
    await this.agent.shutdown(graceMs);
    await this.chain.catch(() => undefined);
    await this.client.flush();
    this.client.close({ reason: 'the server shut down' });
    this.end();
  }

  close(): void {
    this.end();
    this.client.close({ reason: 'closed' });
  }
}

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { PgClient as Client, PgPool as Pool } from '../store/postgres/pg-types.js';
import { AcpError, type ClientCapabilities, type AnySessionUpdate } from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';
import type { AgentLogger, SessionStore } from '@acp-kit/agent';
import { isConnectionError, poolWhere, postgresError } from '../store/postgres/postgres-session-store.js';
import type { AgentHostFactory } from '../server.js';
import { clusterConnection, type ClusterInstance } from './connection.js';
import { isControlRow, PERMISSION_DONE, type ControlRow } from './control.js';
import { NOT_OWNER, OWNER_STOPPED } from './error-codes.js';
import { Follower } from './follower.js';
import { Inbox, type InboxRequest } from './inbox.js';
import { Leases, sessionKey } from './leases.js';
import { OwnerLink, type FollowerSetup } from './owner-link.js';
import { UpdateTable } from './table.js';
import { lastTurnOf, type LastTurn } from './last-turn.js';
import { Wakeups } from './wakeups.js';
import type { Counter, MeterProvider } from '@opentelemetry/api';
import { sharedInstruments } from '../observability/instruments.js';

/** Options of {@link ClusterNode.start}. */
export interface ClusterOptions {
  /** The database (`postgres://…`); or give `pool`. */
  url?: string;
  /** A pool to use (not ended by {@link ClusterNode.stop}). */
  pool?: Pool;
  /** This instance's id in leases and the inbox (default `<hostname>-<pid>-<random>`); unique among live instances. */
  instanceId?: string;
  /** How long a lease lasts without renewal (default 10 000 ms; renewed every third of it). */
  leaseMs?: number;
  /** How often followers and the inbox are polled besides NOTIFY, and owners checked for liveness (default leaseMs / 4). */
  pollMs?: number;
  /** Diagnostics. */
  log?: (line: string) => void;
  /** Where `acp.cluster.lease.changes` is counted (default: the global meter provider of `@opentelemetry/api`). */
  meterProvider?: MeterProvider;
}

/**
 * One `acp-kit serve` instance of several on one PostgreSQL database. Each session is run by one
 * instance at a time, the holder of its lease; a client on another instance follows it from the
 * table (`acp_updates`, woken by NOTIFY, polled as a fallback) and sends its requests through the
 * inbox. When an owner dies its lease expires and the next instance that needs the session takes
 * it over, ending the interrupted turn. See docs/postgres-cluster.md.
 */
export class ClusterNode implements ClusterInstance {
  readonly instanceId: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  private readonly leases: Leases;
  private readonly inbox: Inbox;
  private readonly wakeups: Wakeups;
  private readonly table: UpdateTable;
  private inner: AgentHostFactory | undefined;
  private storeFor: ((namespace: string) => SessionStore | null) | undefined;
  /** leases held for local connections: key -> count */
  private readonly holds = new Map<string, number>();
  private readonly links = new Map<string, OwnerLink>();
  /** leases being given back: key -> the release in flight */
  private readonly releasing = new Map<string, Promise<void>>();
  /** followers on this instance: key -> followers and the owner they follow */
  private readonly following = new Map<
    string,
    { namespace: string; sessionId: string; owner: string; followers: Set<Follower> }
  >();
  /** the owner check of a followed session in progress (key -> its promise), see checkOwner */
  private readonly ownerChecks = new Map<string, Promise<void>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private beatTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  /** set by beginStop(): followers' requests are turned away while this instance's turns end */
  private draining = false;
  readonly log: (line: string) => void;
  private readonly logger: AgentLogger;
  /** `acp.cluster.lease.changes`: acquired, taken_over (from an expired owner), moved (seen by a follower), lost */
  private readonly leaseChanges: Counter;

  private constructor(
    readonly pool: Pool,
    private readonly ownPool: boolean,
    options: ClusterOptions,
    connect: () => Promise<Client>,
  ) {
    this.instanceId = options.instanceId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? 10_000;
    this.pollMs = options.pollMs ?? Math.max(50, Math.floor(this.leaseMs / 4));
    this.log = options.log ?? (() => undefined);
    const log = this.log;
    this.logger = {
      debug: () => undefined,
      info: (m) => log(m),
      warn: (m) => log(`warning: ${m}`),
      error: (m) => log(`error: ${m}`),
    };
    const leaseChanges = (this.leaseChanges = sharedInstruments(options.meterProvider).leaseChanges);
    this.leases = new Leases(pool, this.instanceId, this.leaseMs, this.log, () =>
      leaseChanges.add(1, { kind: 'lost' }),
    );
    this.inbox = new Inbox(pool, this.instanceId, (r) => this.onRequest(r), this.log);
    this.table = new UpdateTable(pool);
    this.wakeups = new Wakeups(
      connect,
      this.instanceId,
      {
        updates: (key) => this.wakeFollowers(key),
        inbox: (kind) =>
          void (kind === 'to' ? this.inbox.readRequests() : this.inbox.readAnswers()).catch((e: Error) =>
            this.log(`inbox: ${e.message}`),
          ),
        resumed: () => void this.poll(),
        log: this.log,
      },
      Math.max(100, this.pollMs),
    );
  }

  /** Connects, starts listening and polling. The schema must be current (`migrate(pool)` from `acp-kit/agent`, or `acp-kit db migrate`). */
  static async start(options: ClusterOptions): Promise<ClusterNode> {
    const pg = (await import('pg')).default;
    const url = options.url;
    if (!options.pool && !url) throw new Error('cluster: give a PostgreSQL url or pool');
    const pool = options.pool ?? new pg.Pool({ connectionString: url, max: 10, application_name: 'acp-kit cluster' });
    const config = url
      ? { connectionString: url, application_name: 'acp-kit cluster listen' }
      : { ...pool.options, application_name: 'acp-kit cluster listen' };
    const connect = async (): Promise<Client> => {
      const c = new pg.Client(config);
      await c.connect();
      return c;
    };
    const node = new ClusterNode(pool, !options.pool, options, connect);
    try {
      // the schema is the store's to migrate (migration 2 holds the cluster's tables): `acp-kit serve`
      // and `acp-kit db migrate` do it; not imported here, to keep the bundles' shared chunks as they were
      await node.heartbeat().catch((e: Error & { code?: string }) => {
        if (e.code === '42P01')
          throw new Error(
            'the cluster tables are missing: run `acp-kit db migrate --url …` (or migrate(pool) from acp-kit/agent) first',
          );
        throw e;
      });
      await node.wakeups.start();
    } catch (e) {
      await node.stop({ release: false });
      throw e;
    }
    node.pollTimer = setInterval(() => void node.poll(), node.pollMs);
    node.pollTimer.unref();
    node.beatTimer = setInterval(
      () => void node.heartbeat().catch((e: Error) => node.log(`heartbeat: ${e.message}`)),
      Math.max(50, Math.floor(node.leaseMs / 3)),
    );
    node.beatTimer.unref();
    return node;
  }

  /**
   * The agent factory of this instance: `inner` (e.g. {@link inProcessAgent}) behind the cluster's
   * routing. `storeFor`: the stores `inner` uses (the same objects, one per token owner), created
   * with `fanOut: true`: the cluster's own live rows (permission questions) go through them, so
   * each session's rows have one writer and one order.
   */
  agent(inner: AgentHostFactory, storeFor?: (namespace: string) => SessionStore | null): AgentHostFactory {
    this.inner = inner;
    this.storeFor = storeFor;
    return (transport, ctx) => clusterConnection(this, inner, transport, ctx);
  }

  /** The backend pid of the LISTEN connection (tests end it to prove the poll delivers). */
  get listenPid(): number | undefined {
    return this.wakeups.pid;
  }

  // ---- leases for local clients ----------------------------------------------

  async claimFor(namespace: string, sessionId: string): Promise<{ mine: true } | { mine: false; owner: string }> {
    const key = sessionKey(namespace, sessionId);
    await this.handedOver(key);
    if (this.leases.holds(namespace, sessionId)) {
      this.holds.set(key, (this.holds.get(key) ?? 0) + 1);
      return { mine: true };
    }
    const claim = await this.leases.claim(namespace, sessionId);
    if (!claim.mine) return claim;
    this.leaseChanges.add(1, { kind: claim.takenFrom ? 'taken_over' : 'acquired' });
    if (claim.takenFrom) await this.endInterruptedTurn(namespace, sessionId, claim.takenFrom);
    this.holds.set(key, (this.holds.get(key) ?? 0) + 1);
    return { mine: true };
  }

  releaseFor(namespace: string, sessionId: string): void {
    const key = sessionKey(namespace, sessionId);
    const n = (this.holds.get(key) ?? 0) - 1;
    if (n > 0) {
      this.holds.set(key, n);
      return;
    }
    this.holds.delete(key);
    const released: Promise<void> = this.leases.release(namespace, sessionId).finally(() => {
      if (this.releasing.get(key) === released) this.releasing.delete(key);
    });
    this.releasing.set(key, released);
  }

  /**
   * Waits until a session this instance is giving up is given up: a link whose last follower left
   * (its instance stopping in the middle of a turn) is still ending the turn, and its end and last
   * chunks are not stored yet. A client resuming here meanwhile took the lease still held, joined
   * nothing and was replayed a history without them, and never got them (issue 24); and a claim
   * racing the release's delete could lose the lease it just renewed.
   */
  private async handedOver(key: string): Promise<void> {
    const link = this.links.get(key);
    if (link?.isClosing) await link.ended;
    await this.releasing.get(key);
  }

  /** How the session's last turn ended (its newest idle `state_update` in the table), for a resume snapshot. */
  async lastTurn(namespace: string, sessionId: string): Promise<LastTurn | undefined> {
    return lastTurnOf(await this.table.liveRows(namespace, sessionId));
  }

  // ---- followers ---------------------------------------------------------------

  follower(
    namespace: string,
    sessionId: string,
    owner: string,
    setup: FollowerSetup,
    caps: ClientCapabilities,
    send: (m: object) => void,
    whenWritable: () => Promise<void>,
  ): Follower {
    const key = sessionKey(namespace, sessionId);
    let entry = this.following.get(key);
    if (!entry) this.following.set(key, (entry = { namespace, sessionId, owner, followers: new Set() }));
    const e = entry;
    const f = new Follower(
      {
        namespace,
        sessionId,
        clientCapabilities: caps,
        logger: this.logger,
        send,
        whenWritable,
        readRows: (after) => this.table.read(namespace, sessionId, after),
        toOwner: (kind, payload) => this.toOwner(e, kind, payload),
      },
      setup,
    );
    e.followers.add(f);
    return f;
  }

  forget(namespace: string, f: Follower): void {
    for (const [key, e] of this.following) {
      if (e.namespace === namespace && e.followers.delete(f) && e.followers.size === 0) this.following.delete(key);
    }
  }

  /** Sends an inbox request to the session's owner; when that instance is no longer the owner, finds the new one and tries again. */
  private async toOwner(
    e: { namespace: string; sessionId: string; owner: string },
    kind: Parameters<Inbox['send']>[3],
    payload: Record<string, unknown>,
  ): Promise<unknown> {
    try {
      return await this.toOwnerThroughInbox(e, kind, payload);
    } catch (err) {
      throw this.unreachable(err);
    }
  }

  /** {@link ClusterInstance.clientError}: {@link unreachable}, else the error as an AcpError. */
  clientError(e: unknown): AcpError {
    return AcpError.from(this.unreachable(e));
  }

  /**
   * A database failure on a follower's path as its client should see it: the store's code (-32011)
   * naming the database and this instance, not an opaque -32603 "Connection terminated".
   */
  private unreachable(err: unknown): unknown {
    return err instanceof AcpError || !isConnectionError(err)
      ? err
      : postgresError(poolWhere(this.pool), err, ` from instance ${this.instanceId}`);
  }

  private async toOwnerThroughInbox(
    e: { namespace: string; sessionId: string; owner: string },
    kind: Parameters<Inbox['send']>[3],
    payload: Record<string, unknown>,
  ): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      // An owner that stops cleanly (SIGTERM) gives its lease back at once, but nothing tells this
      // instance: without this check a client's request (a prompt after the owner's turn ended
      // `cancelled`) went to the stopped owner's inbox, waited for the next poll (lease/4) and then
      // failed as if the owner had died mid-request (NOT_OWNER, ownerStopped), instead of running on
      // the instance that takes the free lease at once (docs/postgres-cluster.md, "Clean stop").
      // One read of the lease per client request; a free or expired lease is taken here.
      if (kind !== 'attach' && kind !== 'detach') await this.checkOwner(sessionKey(e.namespace, e.sessionId));
      const owner = e.owner;
      try {
        return await this.inbox.send(e.namespace, e.sessionId, owner, kind, payload);
      } catch (err) {
        if (!(err instanceof AcpError) || err.code !== NOT_OWNER || attempt >= 3 || kind === 'detach') throw err;
        // turned away by an owner that is stopping cleanly (nothing was carried out): it gives the
        // lease back once its own turns ended; wait for that, then go to whoever takes the session
        if (isObj(err.data) && err.data.ownerStopping === true) await this.leaseLeaves(e.namespace, e.sessionId, owner);
        // an owner that died may have carried out a request before: only an attach is safe to send again
        if (isObj(err.data) && err.data.ownerStopped === true && kind !== 'attach') throw err;
        await this.checkOwner(sessionKey(e.namespace, e.sessionId));
      }
    }
  }

  /** Resolves once `owner` no longer holds a live lease of the session (given back, or expired: at most about one lease). */
  private async leaseLeaves(namespace: string, sessionId: string, owner: string): Promise<void> {
    const deadline = Date.now() + 2 * this.leaseMs;
    while (!this.stopped && Date.now() < deadline && (await this.leases.liveOwner(namespace, sessionId)) === owner) {
      await new Promise((r) => setTimeout(r, Math.min(100, this.pollMs)));
    }
  }

  private wakeFollowers(key: string): void {
    const e = this.following.get(key);
    if (e) for (const f of e.followers) void f.wake();
  }

  /** The fallback of NOTIFY and the liveness check of the owners followed here. */
  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      await this.inbox.readRequests();
      await this.inbox.readAnswers();
      await this.forgetDeadFollowers();
      for (const key of [...this.following.keys()]) {
        this.wakeFollowers(key);
        await this.checkOwner(key);
      }
    } catch (e) {
      this.log(`poll: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.polling = false;
    }
  }

  /** Every lease/3: this instance is alive (owners keep its followers attached). */
  private async heartbeat(): Promise<void> {
    await this.pool.query(
      `insert into acp_instances (id, alive_until) values ($1, now() + $2::interval)
       on conflict (id) do update set alive_until = excluded.alive_until`,
      [this.instanceId, `${this.leaseMs} milliseconds`],
    );
  }

  /**
   * Followers whose instance stopped beating (it died, or lost the database, without detaching
   * them) are detached from this owner's links: a session no client follows any more is closed
   * and its lease given back, instead of being held for them forever.
   */
  private async forgetDeadFollowers(): Promise<void> {
    if (this.links.size === 0) return;
    const instances = new Set<string>();
    for (const link of this.links.values())
      for (const i of link.followerInstances) if (i !== this.instanceId) instances.add(i);
    if (instances.size === 0) return;
    const r = await this.pool.query<{ id: string }>(
      'select i.id from unnest($1::text[]) as i(id) where not exists (select 1 from acp_instances a where a.id = i.id and a.alive_until >= now())',
      [[...instances]],
    );
    for (const { id } of r.rows) {
      this.log(`instance ${id} stopped (no heartbeat for ${this.leaseMs} ms): its followers are detached`);
      for (const link of [...this.links.values()]) if (link.followerInstances.has(id)) await link.detachInstance(id);
    }
  }

  /**
   * Whether the owner of a followed session still holds its lease; when it expired, this instance
   * tries to take it over (and ends the turn it left), and the followers attach to the new owner.
   */
  private checkOwner(key: string): Promise<void> {
    // one check at a time per session, each after the previous one: a client's request (toOwner)
    // and the poll may both find an expired lease, and two claims at once could both end the dead
    // owner's turn; a request's check must still read the lease after it arrived (not join an older one)
    const run = (this.ownerChecks.get(key) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.checkOwnerNow(key));
    this.ownerChecks.set(key, run);
    void run.then(
      () => this.ownerChecks.get(key) === run && this.ownerChecks.delete(key),
      () => this.ownerChecks.get(key) === run && this.ownerChecks.delete(key),
    );
    return run;
  }

  private async checkOwnerNow(key: string): Promise<void> {
    const e = this.following.get(key);
    if (!e) return;
    const live = await this.leases.liveOwner(e.namespace, e.sessionId);
    let owner = live;
    if (owner === undefined) {
      const claim = await this.leases.claim(e.namespace, e.sessionId);
      if (claim.mine) {
        this.leaseChanges.add(1, { kind: claim.takenFrom ? 'taken_over' : 'acquired' });
        if (claim.takenFrom) await this.endInterruptedTurn(e.namespace, e.sessionId, claim.takenFrom);
        owner = this.instanceId;
        // the followers attaching below open the owner link, which keeps the lease
      } else owner = claim.owner;
    }
    if (owner === e.owner) return;
    const previous = e.owner;
    e.owner = owner;
    this.leaseChanges.add(1, { kind: 'moved' });
    this.log(`session ${e.sessionId}: owner ${previous} -> ${owner}`);
    this.inbox.failPendingTo(
      previous,
      new AcpError(
        NOT_OWNER,
        `the instance that ran session ${e.sessionId} (${previous}) stopped (lease expired); try again`,
        { ownerStopped: true, owner },
      ),
    );
    for (const f of e.followers) {
      this.toOwner(e, 'attach', f.payload()).catch((err: Error) =>
        this.log(`session ${e.sessionId}: re-attaching a follower to ${owner} failed: ${err.message}`),
      );
    }
  }

  /**
   * A session taken over from a dead instance: its turn (the last `state_update` not `idle`) never
   * ended. Its end is appended: `idle` with an `error` naming the reason, and its open permission
   * questions are withdrawn, so every client sees the turn end once, after all it had seen.
   */
  private async endInterruptedTurn(namespace: string, sessionId: string, previous: string): Promise<void> {
    const rows = await this.table.liveRows(namespace, sessionId);
    const done = new Set<string>();
    const open: string[] = [];
    let state: unknown = 'idle';
    for (const r of rows) {
      if (!isObj(r.body)) continue;
      if (isControlRow(r.body)) {
        if (r.body.sessionUpdate === PERMISSION_DONE) done.add(r.body.questionId);
        else if (!done.has(r.body.questionId)) open.push(r.body.questionId);
        continue;
      }
      if (r.body.sessionUpdate === 'state_update') {
        state = r.body.state;
        break;
      }
    }
    for (const questionId of open)
      await this.publish(namespace, sessionId, { sessionUpdate: PERMISSION_DONE, questionId, why: 'withdrawn' });
    if (state === 'idle') return;
    this.log(`session ${sessionId}: took over from ${previous} (lease expired) in the middle of a turn; ending it`);
    await this.table.appendLive(namespace, sessionId, {
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'error',
      error: {
        code: OWNER_STOPPED,
        message: `the instance that ran the turn (${previous}) stopped (lease expired)`,
        data: { owner: previous },
      },
    });
  }

  /** A control row of a session this instance runs: through its store (the one writer of its seqs) when it can take live rows. */
  private publish(namespace: string, sessionId: string, row: ControlRow): Promise<void> {
    const store = this.storeFor?.(namespace);
    if (store?.appendLive) return Promise.resolve(store.appendLive(sessionId, row as unknown as AnySessionUpdate));
    return this.table.appendLive(namespace, sessionId, row).then(() => undefined);
  }

  // ---- the owner's side of the inbox ---------------------------------------------

  private onRequest(r: InboxRequest): void {
    void this.handle(r).then(
      (result) => this.inbox.answer(r, { result }),
      (e: unknown) => this.inbox.answer(r, { error: AcpError.from(e).toJSON() }),
    );
  }

  private async handle(r: InboxRequest): Promise<unknown> {
    const p = isObj(r.payload) ? r.payload : {};
    const followerId = typeof p.followerId === 'string' ? p.followerId : '';
    const key = sessionKey(r.namespace, r.sessionId);
    if (r.kind === 'detach') {
      await this.links.get(key)?.detach(followerId);
      return null;
    }
    // a clean stop: no new work from other instances (a prompt would start a turn the stop then
    // cancels); the follower waits for the lease this instance gives back and goes to the next owner
    if (this.draining || this.stopped) {
      throw new AcpError(
        NOT_OWNER,
        `instance ${this.instanceId} is stopping; session ${r.sessionId} moves to another instance`,
        { ownerStopping: true, owner: this.instanceId },
      );
    }
    if (!this.leases.holds(r.namespace, r.sessionId)) {
      throw new AcpError(NOT_OWNER, `instance ${this.instanceId} does not run session ${r.sessionId}`);
    }
    const setup = setupOf(p.setup);
    if (!setup) throw AcpError.invalidParams('inbox payload.setup: must be an object with a string cwd');
    const link = this.linkFor(r.namespace, r.sessionId);
    const attached = await link.attach(followerId, setup, r.from);
    const method = typeof p.method === 'string' ? p.method : '';
    switch (r.kind) {
      case 'attach':
        return attached;
      case 'request':
        return link.request(method, p.params);
      case 'notify':
        link.notify(method, p.params);
        return null;
      case 'answer':
        return link.answer(typeof p.questionId === 'string' ? p.questionId : '', p.result);
    }
  }

  private linkFor(namespace: string, sessionId: string): OwnerLink {
    const key = sessionKey(namespace, sessionId);
    const link = this.links.get(key);
    if (link) return link;
    const inner = this.inner;
    if (!inner) throw AcpError.internal('cluster: no agent to run sessions (ClusterNode.agent was not called)');
    this.holds.set(key, (this.holds.get(key) ?? 0) + 1);
    const made: OwnerLink = new OwnerLink({
      namespace,
      sessionId,
      open: (transport) =>
        inner(transport, { owner: namespace, connectionId: `cluster-${sessionId}`, transport: 'websocket' }),
      publish: (row) => this.publish(namespace, sessionId, row),
      ended: () => {
        if (this.links.get(key) === made) {
          this.links.delete(key);
          this.releaseFor(namespace, sessionId);
        }
      },
      log: this.log,
    });
    this.links.set(key, made);
    return made;
  }

  /**
   * Whether this instance should get new clients (`/readyz`): not draining or stopped, and the
   * database answers. A database that does not answer within a second counts as down.
   */
  async readiness(): Promise<{ ready: true } | { ready: false; reason: string }> {
    if (this.draining || this.stopped) return { ready: false, reason: 'draining' };
    let timer: NodeJS.Timeout | undefined;
    const down = new Promise<false>((resolve) => (timer = setTimeout(resolve, 1000, false)));
    const up = this.pool.query('select 1').then(
      () => true,
      () => false,
    );
    const ok = await Promise.race([up, down]).finally(() => clearTimeout(timer));
    return ok ? { ready: true } : { ready: false, reason: 'database' };
  }

  /**
   * A clean stop begins: call it before closing the server, then {@link stop} (`acp-kit serve` does
   * so on SIGTERM). Requests that followers on other instances send to sessions run here are turned
   * away (NOT_OWNER, `data.ownerStopping`); those instances wait for the lease this one gives back
   * in {@link stop} and send them to the next owner.
   */
  beginStop(): void {
    this.draining = true;
  }

  /** Stops polling and listening; `release`: gives the leases back (a clean shutdown) instead of letting them expire. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    const release = options.release ?? true;
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearInterval(this.beatTimer);
    const links = [...this.links.values()];
    this.links.clear();
    // a clean stop: sessions run here only for followers on other instances end their turns
    // `cancelled`, written and announced while this instance still holds the leases (killed, a turn
    // that takes a moment to stop would end after the lease is given back: fenced out, never told)
    if (release) await Promise.all(links.map((link) => link.close()));
    else for (const link of links) link.kill();
    this.inbox.stop();
    await this.wakeups.stop();
    await this.leases.stop(release);
    // a clean stop: owners need not wait for the heartbeat to run out to forget this instance's followers
    if (release)
      await this.pool.query('delete from acp_instances where id = $1', [this.instanceId]).catch(() => undefined);
    if (this.ownPool) await this.pool.end().catch(() => undefined);
  }
}

/** A follower's setup as it travels through the inbox (JSON from another instance: checked). */
function setupOf(v: unknown): FollowerSetup | undefined {
  if (!isObj(v) || typeof v.cwd !== 'string') return undefined;
  return {
    cwd: v.cwd,
    additionalDirectories: Array.isArray(v.additionalDirectories)
      ? v.additionalDirectories.filter((d): d is string => typeof d === 'string')
      : [],
    mcpServers: Array.isArray(v.mcpServers) ? v.mcpServers : [],
  };
}

import type { PgPool as Pool } from '../store/postgres/pg-types.js';

/** The outcome of {@link Leases.claim}. */
export type Claim =
  /** This instance owns the session now; `takenFrom`: the instance whose lease had expired. */
  | { mine: true; takenFrom?: string }
  /** Another live instance owns it. */
  | { mine: false; owner: string };

/** Key of a session in maps: `<namespace>/<sessionId>`. */
export const sessionKey = (namespace: string, sessionId: string): string => `${namespace}/${sessionId}`;

/**
 * One owner per session at a time: a row in `acp_leases` (owner = instance id, `lease_until`),
 * renewed every lease/3 while the instance has the session open, and taken over by another instance
 * only once it expired, in one statement (two instances racing for it: exactly one wins).
 */
export class Leases {
  /** namespace/sessionId -> [namespace, sessionId] of the leases this instance holds */
  private readonly held = new Map<string, [string, string]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    readonly instanceId: string,
    readonly leaseMs: number,
    private readonly log: (line: string) => void,
    /** a lease this instance held was taken by another (counted in `acp.cluster.lease.changes`) */
    private readonly onLost?: () => void,
  ) {}

  /** Whether this instance believes it holds the lease of a session. */
  holds(namespace: string, sessionId: string): boolean {
    return this.held.has(sessionKey(namespace, sessionId));
  }

  /** Takes the lease when it is free, expired or already ours; otherwise names the live owner. */
  async claim(namespace: string, sessionId: string): Promise<Claim> {
    const interval = `${this.leaseMs} milliseconds`;
    const inserted = await this.pool.query(
      `insert into acp_leases (namespace, session_id, owner, lease_until) values ($1, $2, $3, now() + $4::interval)
       on conflict (namespace, session_id) do nothing returning owner`,
      [namespace, sessionId, this.instanceId, interval],
    );
    if (inserted.rowCount === 1) return this.got(namespace, sessionId);
    // taken over only when expired (the WHERE is re-checked on the locked row: one racer wins)
    const taken = await this.pool.query<{ prev: string }>(
      `update acp_leases l set owner = $3, lease_until = now() + $4::interval
       from (select owner as prev from acp_leases where namespace = $1 and session_id = $2) p
       where l.namespace = $1 and l.session_id = $2 and (l.lease_until < now() or l.owner = $3)
       returning p.prev`,
      [namespace, sessionId, this.instanceId, interval],
    );
    const took = taken.rows[0];
    if (taken.rowCount === 1 && took !== undefined) {
      const prev = took.prev;
      return this.got(namespace, sessionId, prev !== this.instanceId ? prev : undefined);
    }
    const current = await this.pool.query<{ owner: string }>(
      'select owner from acp_leases where namespace = $1 and session_id = $2',
      [namespace, sessionId],
    );
    // released between the statements: try again
    const row = current.rows[0];
    if (row === undefined) return this.claim(namespace, sessionId);
    this.held.delete(sessionKey(namespace, sessionId));
    return { mine: false, owner: row.owner };
  }

  private got(namespace: string, sessionId: string, takenFrom?: string): Claim {
    this.held.set(sessionKey(namespace, sessionId), [namespace, sessionId]);
    this.schedule();
    return takenFrom ? { mine: true, takenFrom } : { mine: true };
  }

  /** The live owner of a session, or `undefined` when nobody holds an unexpired lease. */
  async liveOwner(namespace: string, sessionId: string): Promise<string | undefined> {
    const r = await this.pool.query<{ owner: string }>(
      'select owner from acp_leases where namespace = $1 and session_id = $2 and lease_until >= now()',
      [namespace, sessionId],
    );
    return r.rows[0]?.owner;
  }

  /** Gives a lease back (the session closed here). */
  async release(namespace: string, sessionId: string): Promise<void> {
    if (!this.held.delete(sessionKey(namespace, sessionId))) return;
    await this.pool
      .query('delete from acp_leases where namespace = $1 and session_id = $2 and owner = $3', [
        namespace,
        sessionId,
        this.instanceId,
      ])
      .catch((e: Error) => {
        this.log(`could not release the lease of ${sessionId}: ${e.message} (it expires in ${this.leaseMs} ms)`);
      });
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /** Renews every lease held; one lost meanwhile (taken after a stall) is forgotten loudly. */
  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const entries = [...this.held.values()];
    try {
      const r = await this.pool.query<{ namespace: string; session_id: string }>(
        `update acp_leases set lease_until = now() + $2::interval
         where owner = $1 and (namespace, session_id) in (select * from unnest($3::text[], $4::text[]))
         returning namespace, session_id`,
        [this.instanceId, `${this.leaseMs} milliseconds`, entries.map((e) => e[0]), entries.map((e) => e[1])],
      );
      const kept = new Set(r.rows.map((row) => sessionKey(row.namespace, row.session_id)));
      for (const [key, [, sessionId]] of [...this.held]) {
        if (!kept.has(key) && entries.some((e) => sessionKey(e[0], e[1]) === key)) {
          this.held.delete(key);
          this.log(`lost the lease of session ${sessionId} (another instance took it over after it expired)`);
          this.onLost?.();
        }
      }
    } catch (e) {
      this.log(`could not renew ${entries.length} lease(s): ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Stops renewing; with `release`, gives every lease back (a clean shutdown). */
  async stop(release: boolean): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (release && this.held.size > 0) {
      const entries = [...this.held.values()];
      this.held.clear();
      await this.pool
        .query(
          'delete from acp_leases where owner = $1 and (namespace, session_id) in (select * from unnest($2::text[], $3::text[]))',
          [this.instanceId, entries.map((e) => e[0]), entries.map((e) => e[1])],
        )
        .catch(() => undefined);
    }
  }
}

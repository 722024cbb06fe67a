// `/readyz` (issue 24 item 9): what a load balancer asks before it sends an instance new clients.
// A cluster instance is ready when it is not draining and its database answers; `/healthz` stays
// liveness only, so an orchestrator does not restart instances for a database outage. The database
// path goes through a relay the test holds and cuts (test/support/cut-proxy.ts).
import { afterEach, expect, it } from 'vitest';
import { startClusterInstance } from '../../../test/support/cluster-instance.js';
import { startCutProxy, type CutProxy } from '../../../test/support/cut-proxy.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const get = async (url: string): Promise<{ status: number; body: unknown }> => {
  const r = await fetch(url);
  return { status: r.status, body: await r.json() };
};

describePostgres('/readyz of a cluster instance', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  let relay: CutProxy | undefined;
  afterEach(async () => {
    relay?.release();
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  it('ready; not ready (database) while the database is unreachable, live all along; ready again; not ready (draining) once stopping', async () => {
    const target = new URL(db.url);
    relay = await startCutProxy(Number(target.port));
    cleanups.push(() => relay?.close());
    target.port = String(relay.port);
    const inst = await startClusterInstance({
      databaseUrl: target.toString(),
      id: 'ready-1',
      control: controlledAgent(),
      leaseMs: 4000,
      cleanups,
    });
    const base = inst.url.replace(/^ws/, 'http').replace(/\/acp$/, '');
    expect(await get(`${base}/readyz`)).toEqual({ status: 200, body: { ready: true } });

    // the database path goes down: new connections are held, open ones cut
    relay.hold();
    relay.cut();
    expect(await get(`${base}/readyz`)).toEqual({ status: 503, body: { ready: false, reason: 'database' } });
    expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: { ok: true } });

    relay.release();
    expect(await get(`${base}/readyz`)).toEqual({ status: 200, body: { ready: true } });

    // SIGTERM's first step in `acp-kit serve`: the load balancer stops sending new clients here
    inst.node.beginStop();
    expect(await get(`${base}/readyz`)).toEqual({ status: 503, body: { ready: false, reason: 'draining' } });
  });
});

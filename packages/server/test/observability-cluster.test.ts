// Issue 24 item 9 against a real PostgreSQL server (test/support/postgres.ts): the cluster counts
// its session owner changes in acp.cluster.lease.changes (acquired; taken_over from an expired
// owner) and timedSessionStore times the PostgreSQL store's calls under store="postgres".
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { ClusterNode } from '../src/cluster/node.js';
import { Leases } from '../src/cluster/leases.js';
import { migrate } from '../src/store/postgres/migrations.js';
import { PostgresSessionStore } from '../src/store/postgres/postgres-session-store.js';
import { timedSessionStore } from '../src/index.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

describePostgres('cluster and store telemetry (PostgreSQL)', () => {
  const db = usePostgres();
  let pool: pg.Pool;
  let provider: MeterProvider;
  let reader: PeriodicExportingMetricReader;
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeEach(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
    pool.on('error', () => undefined);
    await migrate(pool);
    await pool.query('truncate acp_leases');
    reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    provider = new MeterProvider({ readers: [reader] });
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await provider.shutdown();
    await pool.end();
  });

  const collect = async (): Promise<MetricData[]> =>
    (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  const leaseChanges = async (kind: string): Promise<unknown> =>
    (await collect())
      .find((m) => m.descriptor.name === 'acp.cluster.lease.changes')
      ?.dataPoints.find((p) => p.attributes.kind === kind)?.value;

  it('counts a lease acquired, then one taken over from an expired owner', async () => {
    const node = await ClusterNode.start({ pool, instanceId: 'a', leaseMs: 5000, meterProvider: provider });
    cleanups.push(() => node.stop());
    expect(await node.claimFor('ns', 'fresh')).toEqual({ mine: true });
    expect(await leaseChanges('acquired')).toBe(1);
    expect(await leaseChanges('taken_over')).toBeUndefined();

    const dead = new Leases(pool, 'dead', 300, () => undefined);
    expect(await dead.claim('ns', 'orphan')).toEqual({ mine: true });
    await dead.stop(false); // no renewals: as good as killed
    // wait for the database's clock to pass lease_until (round trips, no local clock)
    for (;;) {
      const r = await pool.query(`select lease_until < now() as expired from acp_leases where owner = 'dead'`);
      if (r.rows[0].expired) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(await node.claimFor('ns', 'orphan')).toEqual({ mine: true });
    expect(await leaseChanges('taken_over')).toBe(1);
    expect(await leaseChanges('acquired')).toBe(1);
  });

  it('times the PostgreSQL store under store="postgres"', async () => {
    const store = timedSessionStore(
      new PostgresSessionStore({ pool, namespace: 'ns', migrate: false }),
      'postgres',
      provider,
    );
    await store.create({
      sessionId: 's1',
      cwd: '/tmp',
      additionalDirectories: [],
      createdAt: new Date().toISOString(),
    });
    await store.append('s1', {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm1',
      content: { type: 'text', text: 'hi' },
    });
    expect((await store.load('s1'))?.updates).toHaveLength(1);
    const h = (await collect()).find((m) => m.descriptor.name === 'acp.store.operation.duration');
    const count = (operation: string): unknown =>
      (
        h?.dataPoints.find((p) => p.attributes.store === 'postgres' && p.attributes.operation === operation)?.value as
          { count: number } | undefined
      )?.count;
    expect(count('write')).toBe(1);
    expect(count('append')).toBe(1);
    expect(count('read')).toBe(1);
  });
});

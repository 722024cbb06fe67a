import { metrics, type Counter, type Histogram, type MeterProvider } from '@opentelemetry/api';
import type { ConfigValues, SessionStore, StoredSession, StoredSessionMeta } from '@acp-kit/agent';
import type { AnySessionUpdate } from '@acp-kit/protocol';
import { TELEMETRY_SCOPE } from './scope.js';

/** Instruments shared by the parts outside a server's connections: the stores and the cluster. */
interface Shared {
  leaseChanges: Counter;
  storeDuration: Histogram;
}

/** One set per meter provider: the cluster and every store of a process add to the same series. */
const byProvider = new WeakMap<MeterProvider, Shared>();

/**
 * The shared instruments of `provider` (default: the global one at the time of the first call,
 * so an SDK must be registered before the server, its stores and its cluster start).
 */
export function sharedInstruments(provider: MeterProvider = metrics.getMeterProvider()): Shared {
  let s = byProvider.get(provider);
  if (s) return s;
  const meter = provider.getMeter(TELEMETRY_SCOPE);
  s = {
    leaseChanges: meter.createCounter('acp.cluster.lease.changes', {
      description: 'Session owner changes seen by this cluster instance, by kind',
    }),
    storeDuration: meter.createHistogram('acp.store.operation.duration', {
      description: 'Session store calls, by store, operation and outcome',
      unit: 's',
    }),
  };
  byProvider.set(provider, s);
  return s;
}

/** Times one store call, sync or async, under `operation`. */
function timed<T>(record: (op: string, seconds: number, ok: boolean) => void, op: string, call: () => T): T {
  const t0 = performance.now();
  const done = (ok: boolean): void => record(op, (performance.now() - t0) / 1000, ok);
  let r: T;
  try {
    r = call();
  } catch (e) {
    done(false);
    throw e;
  }
  if (r instanceof Promise) {
    r.then(
      () => done(true),
      () => done(false),
    );
  } else done(true);
  return r;
}

/**
 * `store` with each call timed in `acp.store.operation.duration` (attributes `store` = `kind`,
 * e.g. memory, file, postgres; `operation` = append, read, write; `outcome`). Optional methods stay
 * absent when the store lacks them, so the runtime's fallbacks behave as without the wrapper.
 */
export function timedSessionStore(store: SessionStore, kind: string, provider?: MeterProvider): SessionStore {
  const h = sharedInstruments(provider).storeDuration;
  const rec = (operation: string, seconds: number, ok: boolean): void =>
    h.record(seconds, { store: kind, operation, outcome: ok ? 'ok' : 'error' });
  const { appendLive, get, fork, setArchived, acquire, release } = store;
  return {
    create: (meta: StoredSessionMeta) => timed(rec, 'write', () => store.create(meta)),
    append: (id: string, u: AnySessionUpdate) => timed(rec, 'append', () => store.append(id, u)),
    setConfigValues: (id: string, v: ConfigValues) => timed(rec, 'write', () => store.setConfigValues(id, v)),
    load: (id: string): Promise<StoredSession | undefined> => timed(rec, 'read', () => store.load(id)),
    list: () => timed(rec, 'read', () => store.list()),
    delete: (id: string) => timed(rec, 'write', () => store.delete(id)),
    ...(appendLive && {
      appendLive: (id: string, u: AnySessionUpdate) => timed(rec, 'append', () => appendLive.call(store, id, u)),
    }),
    ...(get && { get: (id: string) => timed(rec, 'read', () => get.call(store, id)) }),
    ...(fork && { fork: (src: string, m: StoredSessionMeta) => timed(rec, 'write', () => fork.call(store, src, m)) }),
    ...(setArchived && {
      setArchived: (id: string, a: boolean) => timed(rec, 'write', () => setArchived.call(store, id, a)),
    }),
    ...(acquire && { acquire: (id: string) => acquire.call(store, id) }),
    ...(release && { release: (id: string) => release.call(store, id) }),
  };
}

/**
 * `acp-kit serve --metrics-port`: the OpenTelemetry metrics SDK with its Prometheus exporter, on a
 * listener of its own (`GET /metrics`, Prometheus text format). Loaded only when the flag is given,
 * so a serve without it loads no SDK. The exporter's own server is not used: ours reports the port
 * it bound (`--metrics-port 0`) and answers 404 outside `/metrics`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MeterProvider as ApiMeterProvider } from '@opentelemetry/api';
import type { SessionStore } from '@acp-kit/agent';

/** A running metrics endpoint. */
export interface MetricsEndpoint {
  /** `http://host:port/metrics` */
  url: string;
  meterProvider: ApiMeterProvider;
  close(): Promise<void>;
}

/**
 * Starts the endpoint on `host:port` and registers its meter provider as the global one, so the
 * session stores and the cluster (which default to the global provider) report into it too.
 */
export async function startMetrics(host: string, port: number): Promise<MetricsEndpoint> {
  const [{ metrics }, { MeterProvider }, { PrometheusExporter }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-prometheus'),
  ]);
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutTargetInfo: true });
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/metrics') return exporter.getMetricsRequestHandler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr: AddressInfo | string | null = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('the metrics endpoint is not on a TCP port');
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${urlHost}:${addr.port}/metrics`,
    meterProvider: provider,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await provider.shutdown().catch(() => undefined);
    },
  };
}

/** `storeFor` with each owner's store timed once (`acp.store.operation.duration`, `store` = `kind`); kept per owner. */
export async function timedStores(
  storeFor: (owner: string) => SessionStore,
  kind: string,
): Promise<(owner: string) => SessionStore> {
  const { timedSessionStore } = await import('@acp-kit/server');
  const timed = new Map<string, SessionStore>();
  return (owner) => {
    let s = timed.get(owner);
    if (!s) timed.set(owner, (s = timedSessionStore(storeFor(owner), kind)));
    return s;
  };
}

// Issue 24 item 9: the server's OpenTelemetry instruments, in process with the SDK's in-memory
// reader and span exporter. A prompt turn over a real loopback WebSocket must move the per-method
// counters and latency histogram under the exact method names, and its span must continue the
// trace of the W3C `traceparent` the client put in the prompt's `params._meta`.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { InMemorySessionStore } from '../../agent/src/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../../../test/fixtures/e2e-agent-definition.mjs';
import { AcpError } from '../../protocol/src/index.js';
import { inProcessAgent, timedSessionStore, type AcpServer } from '../src/index.js';
import { connectTapped, startE2EServer, TOKEN, wsUrl } from '../../../test/support/remote.js';
import { rawTurn } from '../../../test/support/raw-turn.js';

let server: AcpServer | undefined;
afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

/** A meter provider whose reader the test collects from on demand (the export interval never fires). */
function meterWithReader(): { provider: MeterProvider; collect: () => Promise<MetricData[]> } {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    collect: async () => {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    },
  };
}

function metric(all: MetricData[], name: string): MetricData {
  const m = all.find((x) => x.descriptor.name === name);
  if (!m) throw new Error(`no metric ${name} among ${all.map((x) => x.descriptor.name).join(', ')}`);
  return m;
}

/** The data point of `name` whose attributes include `attrs`. */
function point(all: MetricData[], name: string, attrs: Record<string, string>): { value: unknown } | undefined {
  return metric(all, name).dataPoints.find((p) => Object.entries(attrs).every(([k, v]) => p.attributes[k] === v)) as
    { value: unknown } | undefined;
}

describe('server telemetry', () => {
  it('counts and times each request under its method, and counts the turn by stop reason', async () => {
    const { provider, collect } = meterWithReader();
    server = await startE2EServer({ telemetry: { meterProvider: provider } });
    const turn = await rawTurn(wsUrl(server), TOKEN);
    expect(turn.stopReason).toBe('end_turn');
    const all = await collect();
    for (const method of ['initialize', 'session/new', 'session/prompt']) {
      expect(point(all, 'acp.server.requests', { method, outcome: 'ok' })?.value, method).toBe(1);
      const h = point(all, 'acp.server.request.duration', { method, outcome: 'ok' })?.value as {
        count: number;
        sum: number;
      };
      expect(h.count, method).toBe(1);
      expect(h.sum).toBeGreaterThan(0);
    }
    expect(point(all, 'acp.server.turns', { stop_reason: 'end_turn' })?.value).toBe(1);
    expect(point(all, 'acp.server.turns.active', {})?.value).toBe(0);
    expect(metric(all, 'acp.server.sessions').dataPoints).toHaveLength(1);
    expect(metric(all, 'acp.server.unread_bytes').dataPoints).toHaveLength(1);
    await provider.shutdown();
  });

  it('counts the requests of a Streamable HTTP v2 connection, its turn ended by the idle state_update', async () => {
    const { provider, collect } = meterWithReader();
    server = await startE2EServer({ telemetry: { meterProvider: provider } });
    const { conn } = await connectTapped(server.url, TOKEN);
    try {
      const session = await conn.newSession({ cwd: process.cwd() });
      expect((await session.prompt('hello')).stopReason).toBe('end_turn');
      // gauges read at collection: this connection and its session are open
      const open = await collect();
      expect(point(open, 'acp.server.connections', {})?.value).toBe(1);
      expect(point(open, 'acp.server.sessions', {})?.value).toBe(1);
    } finally {
      await conn.close();
    }
    const all = await collect();
    for (const method of ['initialize', 'session/new', 'session/prompt'])
      expect(point(all, 'acp.server.requests', { method, outcome: 'ok' })?.value, method).toBe(1);
    // v2: the prompt's answer only acknowledges it; the turn ends with `state_update` idle + stopReason
    expect(point(all, 'acp.server.turns', { stop_reason: 'end_turn' })?.value).toBe(1);
    expect(point(all, 'acp.server.turns.active', {})?.value).toBe(0);
    await provider.shutdown();
  });

  it('records a refused request under its error code', async () => {
    const { provider, collect } = meterWithReader();
    server = await startE2EServer({ telemetry: { meterProvider: provider } });
    // a prompt to a session that does not exist: the agent answers an error
    await expect(rawTurnToUnknownSession(wsUrl(server))).rejects.toThrow(/session\/prompt/);
    const all = await collect();
    const refused = metric(all, 'acp.server.requests').dataPoints.find(
      (p) => p.attributes.method === 'session/prompt' && p.attributes.outcome === 'error',
    );
    expect(refused?.attributes['error.code']).toMatch(/^-32\d{3}$/);
    expect(point(all, 'acp.server.turns', { stop_reason: 'error' })?.value).toBe(1);
    await provider.shutdown();
  });

  it('times the session store calls of a turn (timedSessionStore)', async () => {
    const { provider, collect } = meterWithReader();
    server = await startE2EServer({
      agent: inProcessAgent(() => createE2EAgent({ AcpError, peer: () => undefined, log: () => undefined, env: {} }), {
        storeFor: () => timedSessionStore(new InMemorySessionStore(), 'memory', provider),
      }),
    });
    await rawTurn(wsUrl(server), TOKEN);
    const all = await collect();
    const created = point(all, 'acp.store.operation.duration', { store: 'memory', operation: 'write' });
    const appended = point(all, 'acp.store.operation.duration', { store: 'memory', operation: 'append' });
    // session/new creates the session; the turn appends the user's prompt and the agent's echo
    expect((created?.value as { count: number }).count).toBe(1);
    expect((appended?.value as { count: number }).count).toBeGreaterThanOrEqual(2);
    await provider.shutdown();
  });

  it('parents the span of a prompt turn on the traceparent of its _meta', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    server = await startE2EServer({ telemetry: { tracerProvider } });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    const turn = await rawTurn(wsUrl(server), TOKEN, { traceparent: `00-${traceId}-${parentSpanId}-01` });
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'acp.turn');
    expect(spans).toHaveLength(1);
    const span = spans[0];
    expect(span?.spanContext().traceId).toBe(traceId);
    expect(span?.parentSpanContext?.spanId).toBe(parentSpanId);
    expect(span?.attributes['acp.session.id']).toBe(turn.sessionId);
    expect(span?.attributes['acp.stop_reason']).toBe('end_turn');
    await tracerProvider.shutdown();
  });

  it('starts a new trace when the traceparent is malformed', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    server = await startE2EServer({ telemetry: { tracerProvider } });
    const zeros = '00000000000000000000000000000000';
    await rawTurn(wsUrl(server), TOKEN, { traceparent: `00-${zeros}-00f067aa0ba902b7-01` });
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span?.spanContext().traceId).not.toBe(zeros);
    expect(span?.parentSpanContext).toBeUndefined();
    await tracerProvider.shutdown();
  });
});

/** A raw prompt naming a session nobody opened (the turn helper with its session/new skipped). */
async function rawTurnToUnknownSession(url: string): Promise<unknown> {
  const { connectWebSocketTransport } = await import('../../protocol/src/rpc/websocket-transport.js');
  const t = connectWebSocketTransport(url, { token: TOKEN });
  const answers = new Map<number, (m: Record<string, unknown>) => void>();
  t.start({
    onMessage: (m) => {
      const msg = m as Record<string, unknown>;
      if (typeof msg.id === 'number') answers.get(msg.id)?.(msg);
    },
    onInvalidLine: () => undefined,
    onClose: () => undefined,
  });
  const request = (id: number, method: string, params: object): Promise<Record<string, unknown>> => {
    const p = new Promise<Record<string, unknown>>((resolve) => answers.set(id, resolve));
    t.send({ jsonrpc: '2.0', id, method, params });
    return p;
  };
  try {
    await request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    const m = await request(2, 'session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] });
    if (m.error) throw new Error(`session/prompt: ${JSON.stringify(m.error)}`);
    return m.result;
  } finally {
    t.close();
  }
}

import {
  metrics,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  type Span,
  type TracerProvider,
  type Tracer,
  type UpDownCounter,
} from '@opentelemetry/api';
import { Methods } from '@acp-kit/protocol';
import { requestIdKey, type Transport, type TransportHandlers } from '@acp-kit/protocol/rpc';
import { isObj, without } from '@acp-kit/protocol/internal';
import { TELEMETRY_SCOPE } from './scope.js';
import { formatTraceparent, parentFromMeta } from './trace-context.js';

/**
 * Where the server's metrics and traces go ({@link AcpServerOptions.telemetry}). Each provider
 * defaults to the global one of `@opentelemetry/api`, which is a no-op until an OpenTelemetry SDK
 * registers itself: without an SDK the server records nothing and pays almost nothing.
 */
export interface TelemetryOptions {
  /** Meter provider of the server's metrics (default: the global one). */
  meterProvider?: MeterProvider;
  /** Tracer provider of the spans of prompt turns (default: the global one). */
  tracerProvider?: TracerProvider;
}

/** One answered client request, for an access log: never its params (prompt text) nor a token. */
export interface RequestLogRecord {
  /** The JSON-RPC method (`other` for a name outside the protocol's). */
  method: string;
  /** The `Acp-Connection-Id`. */
  connection: string;
  /** `params.sessionId`, when the request named one. */
  session?: string;
  /** The JSON-RPC error code of an error answer. */
  code?: number;
  durationMs: number;
}

/** What the server reports on demand: read when a metric reader collects. */
export interface TelemetryGauges {
  connections: () => number;
  sessions: () => number;
  unreadBytes: () => number;
}

export { TELEMETRY_SCOPE };

/** Method names recorded as such; any other becomes `other` so a client cannot grow the label set without bound. */
const KNOWN_METHODS: ReadonlySet<string> = new Set<string>(Object.values(Methods));

/** A request the client sent and the agent has not answered yet. */
interface Pending {
  method: string;
  connection: string;
  session?: string;
  startedMs: number;
  span?: Span;
}

/**
 * The server's instruments. One per server; {@link observe} wraps each connection's transport
 * so every request and its answer is counted and timed where it crosses the server.
 */
export class ServerTelemetry {
  private readonly tracer: Tracer;
  private readonly requests: Counter;
  private readonly duration: Histogram;
  private readonly turns: Counter;
  private readonly activeTurns: UpDownCounter;

  constructor(
    options: TelemetryOptions | undefined,
    gauges: TelemetryGauges,
    private readonly onRequestLog?: (r: RequestLogRecord) => void,
  ) {
    const meter = (options?.meterProvider ?? metrics.getMeterProvider()).getMeter(TELEMETRY_SCOPE);
    this.tracer = (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(TELEMETRY_SCOPE);
    this.requests = meter.createCounter('acp.server.requests', {
      description: 'Requests from clients, by method and outcome (ok, or the JSON-RPC error code)',
    });
    this.duration = meter.createHistogram('acp.server.request.duration', {
      description: 'Time from a request reaching the server to its answer leaving it',
      unit: 's',
    });
    this.turns = meter.createCounter('acp.server.turns', { description: 'Prompt turns ended, by stop reason' });
    this.activeTurns = meter.createUpDownCounter('acp.server.turns.active', { description: 'Prompt turns running' });
    meter
      .createObservableGauge('acp.server.connections', { description: 'Open client connections' })
      .addCallback((r) => r.observe(gauges.connections()));
    meter
      .createObservableGauge('acp.server.sessions', { description: 'Sessions held open by connections' })
      .addCallback((r) => r.observe(gauges.sessions()));
    meter
      .createObservableGauge('acp.server.unread_bytes', {
        description: 'Bytes sent to clients and not yet read by them (the global unread budget)',
        unit: 'By',
      })
      .addCallback((r) => r.observe(gauges.unreadBytes()));
  }

  /** `transport` with every client request and the agent's answer to it recorded. */
  observe(transport: Transport, connection: string): Transport {
    return new ObservedTransport(transport, this, connection);
  }

  /** @internal A request arrived: its span when it is a prompt turn. */
  requestStarted(method: string, params: unknown): Span | undefined {
    if (method !== Methods.sessionPrompt) return undefined;
    this.activeTurns.add(1);
    const sessionId = isObj(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined;
    return this.tracer.startSpan(
      'acp.turn',
      { kind: SpanKind.SERVER, attributes: sessionId !== undefined ? { 'acp.session.id': sessionId } : {} },
      parentFromMeta(params),
    );
  }

  /**
   * @internal The answer of a request left: counted and timed. A v1 prompt's answer ends its turn
   * (it carries the stop reason); a v2 prompt's only acknowledges it: `true` then, the turn goes on
   * until the session's `state_update` says `idle` ({@link turnEnded}).
   */
  requestEnded(p: Pending, answer: Record<string, unknown>): boolean {
    const error = isObj(answer.error) ? answer.error : undefined;
    const code = error && typeof error.code === 'number' ? String(error.code) : undefined;
    const method = KNOWN_METHODS.has(p.method) ? p.method : 'other';
    const attrs: Attributes = {
      method,
      outcome: code === undefined ? 'ok' : 'error',
      ...(code !== undefined ? { 'error.code': code } : {}),
    };
    const ms = performance.now() - p.startedMs;
    this.requests.add(1, attrs);
    this.duration.record(ms / 1000, attrs);
    this.onRequestLog?.({
      method,
      connection: p.connection,
      ...(p.session !== undefined ? { session: p.session } : {}),
      ...(error && typeof error.code === 'number' ? { code: error.code } : {}),
      durationMs: Math.round(ms * 10) / 10,
    });
    if (p.method !== Methods.sessionPrompt) return false;
    const result = isObj(answer.result) ? answer.result : undefined;
    if (code === undefined && typeof result?.stopReason !== 'string') return true;
    this.turnEnded(p, typeof result?.stopReason === 'string' ? result.stopReason : 'error', code);
    return false;
  }

  /** @internal A prompt turn ended with `stopReason` (`code`: the JSON-RPC error that ended it). */
  turnEnded(p: Pending, stopReason: string, code?: string): void {
    this.activeTurns.add(-1);
    this.turns.add(1, { stop_reason: stopReason });
    if (!p.span) return;
    p.span.setAttribute('acp.stop_reason', stopReason);
    if (code !== undefined) p.span.setStatus({ code: SpanStatusCode.ERROR, message: `JSON-RPC error ${code}` });
    p.span.end();
  }

  /** @internal The connection closed with requests unanswered (or v2 turns not ended): those turns end `disconnected`. */
  requestAbandoned(p: Pending): void {
    if (p.method !== Methods.sessionPrompt) return;
    this.activeTurns.add(-1);
    this.turns.add(1, { stop_reason: 'disconnected' });
    p.span?.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the answer' });
    p.span?.end();
  }
}

/**
 * A transport seen by telemetry: requests coming in open a pending entry (and a span for a prompt
 * turn), answers going out close it. Sits outside the tenant guard, so its refusals count too.
 */
class ObservedTransport implements Transport {
  /** Requests not answered yet; both maps exist only while they hold something (idle connections are many). */
  private pending: Map<string, Pending> | undefined;
  /** v2 prompts acknowledged and not ended yet, per session (a v2 session queues prompts) */
  private turns: Map<string, Pending[]> | undefined;

  constructor(
    private readonly inner: Transport,
    private readonly telemetry: ServerTelemetry,
    private readonly connection: string,
  ) {}

  start(handlers: TransportHandlers): void {
    this.inner.start({
      ...handlers,
      // a WebSocket batch is one array of messages
      onMessage: (m) => handlers.onMessage(Array.isArray(m) ? m.map((x) => this.inbound(x)) : this.inbound(m)),
      onClose: (info) => {
        for (const p of [...(this.pending?.values() ?? []), ...[...(this.turns?.values() ?? [])].flat()])
          this.telemetry.requestAbandoned(p);
        this.pending = undefined;
        this.turns = undefined;
        handlers.onClose(info);
      },
    });
  }

  /** Records a request; a prompt's `_meta.traceparent` is replaced by the turn's span so the agent's own spans nest under it. */
  private inbound(m: unknown): unknown {
    if (!isObj(m) || typeof m.method !== 'string' || !('id' in m)) return m;
    const span = this.telemetry.requestStarted(m.method, m.params);
    const session = isObj(m.params) && typeof m.params.sessionId === 'string' ? m.params.sessionId : undefined;
    (this.pending ??= new Map<string, Pending>()).set(requestIdKey(m.id), {
      method: m.method,
      connection: this.connection,
      ...(session !== undefined ? { session } : {}),
      startedMs: performance.now(),
      span,
    });
    const sc = span?.spanContext();
    if (!sc || !span?.isRecording() || !isObj(m.params)) return m;
    const meta = isObj(m.params._meta) ? m.params._meta : {};
    return { ...m, params: { ...m.params, _meta: { ...meta, traceparent: formatTraceparent(sc) } } };
  }

  send(message: object): void {
    if (Array.isArray(message)) for (const m of message) this.outbound(m);
    else this.outbound(message);
    this.inner.send(message);
  }

  /** An answer leaving for a recorded request ends it. */
  private outbound(m: unknown): void {
    if (!isObj(m)) return;
    if (m.method === 'session/update') return this.stateUpdate(m.params);
    if ('method' in m || !('id' in m) || !('result' in m || 'error' in m)) return;
    const pending = this.pending;
    if (!pending) return;
    const key = requestIdKey(m.id);
    const p = pending.get(key);
    if (!p) return;
    this.pending = without(pending, key);
    if (!this.telemetry.requestEnded(p, m) || p.session === undefined) return;
    const turns = (this.turns ??= new Map<string, Pending[]>());
    const open = turns.get(p.session);
    if (open) open.push(p);
    else turns.set(p.session, [p]);
  }

  /** v2: `idle` ends the foreground work, so every acknowledged prompt of the session, with its stop reason. */
  private stateUpdate(params: unknown): void {
    const turns = this.turns;
    if (!turns || !isObj(params) || typeof params.sessionId !== 'string') return;
    const u = params.update;
    if (!isObj(u) || u.sessionUpdate !== 'state_update' || u.state !== 'idle') return;
    const open = turns.get(params.sessionId);
    if (!open) return;
    this.turns = without(turns, params.sessionId);
    const stopReason = typeof u.stopReason === 'string' ? u.stopReason : 'unknown';
    for (const p of open) this.telemetry.turnEnded(p, stopReason);
  }

  whenWritable(): Promise<void> {
    return this.inner.whenWritable();
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(info?: Parameters<Transport['close']>[0]): void {
    this.inner.close(info);
  }
}

import { createTraceState, ROOT_CONTEXT, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { isObj } from '@acp-kit/protocol/internal';

/** W3C trace context `traceparent`, version 00 (https://www.w3.org/TR/trace-context/#traceparent-header). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The parent context of a request from the W3C trace context in its `params._meta` (the
 * meta-propagation RFD reserves the root keys `traceparent`, `tracestate` and `baggage`), or the
 * root context when it carries none or a malformed one (a bad header must not break the turn).
 * Parsed here rather than through the global propagator, which is a no-op unless an SDK registered one.
 */
export function parentFromMeta(params: unknown): Context {
  const meta = isObj(params) && isObj(params._meta) ? params._meta : undefined;
  const header = typeof meta?.traceparent === 'string' ? meta.traceparent.trim().toLowerCase() : undefined;
  const m = header !== undefined ? TRACEPARENT.exec(header) : null;
  if (!m) return ROOT_CONTEXT;
  const [, version = '', traceId = '', spanId = '', flags = ''] = m;
  // version ff is invalid; version 00 has nothing after the flags; all-zero ids are invalid
  if (version === 'ff' || (version === '00' && m[5] !== undefined)) return ROOT_CONTEXT;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return ROOT_CONTEXT;
  const state = typeof meta?.tracestate === 'string' ? createTraceState(meta.tracestate) : undefined;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(state ? { traceState: state } : {}),
  });
}

/** `traceparent` of a span context, to hand the agent the server's span as its parent. */
export function formatTraceparent(ctx: { traceId: string; spanId: string; traceFlags: number }): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

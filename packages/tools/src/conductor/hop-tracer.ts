import { ProxyMethods } from '@acp-kit/protocol';
import { plainJson } from '@acp-kit/protocol/rpc';
import { nodeName, type TraceWriter } from './trace.js';

/** The `tap` of one connection of the conductor (see {@link HopTracer}). */
export interface ConnectionTap {
  sent(message: object): void;
  received(message: unknown): void;
}

type Json = { [key: string]: unknown };

function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Turns the conductor's wire traffic into trace events, once per hop of the chain with one id per
 * hop (as the Rust conductor traces): a request or notification when the conductor sends it to
 * the program that receives it (unwrapped from `proxy/successor`), its answer when the conductor
 * reads it from that program, under the id the conductor used on that leg. Position -1 is the
 * editor, 0..n-1 the components, n the agent.
 */
export class HopTracer {
  /** Per connection: the id of each request the conductor sent there -> its hop. */
  private readonly open = new Map<number, Map<string, { from: string; to: string }>>();

  constructor(
    private readonly writer: TraceWriter,
    private readonly components: number,
  ) {}

  tapFor(position: number): ConnectionTap {
    const open = new Map<string, { from: string; to: string }>();
    this.open.set(position, open);
    return {
      sent: (m) => this.onSent(position, open, m),
      received: (m) => this.onReceived(open, m),
    };
  }

  /** The hop a message sent on connection `position` travels: its sender's and receiver's names, and the message unwrapped. */
  private hopOf(
    position: number,
    method: string,
    raw: unknown,
  ): { from: string; to: string; method: string; params: unknown } {
    // the conductor forwards payloads as received text; the trace shows them parsed
    const params = plainJson(raw);
    const here = nodeName(position, this.components);
    if (position >= 0 && method === ProxyMethods.successor && isJson(params) && typeof params.method === 'string') {
      // delivered from the successor: travels towards the editor
      return {
        from: nodeName(position + 1, this.components),
        to: here,
        method: params.method,
        params: plainJson(params.params) ?? null,
      };
    }
    // to the editor the message comes from the first program; to a program, from the one before it
    const from = position < 0 ? nodeName(0, this.components) : nodeName(position - 1, this.components);
    return { from, to: here, method, params: params ?? null };
  }

  private onSent(position: number, open: Map<string, { from: string; to: string }>, m: object): void {
    if (!isJson(m) || typeof m.method !== 'string') return;
    const hop = this.hopOf(position, m.method, m.params);
    const ts = this.writer.now();
    if (!('id' in m)) {
      this.writer.write({
        type: 'notification',
        ts,
        protocol: 'acp',
        from: hop.from,
        to: hop.to,
        method: hop.method,
        params: hop.params,
      });
      return;
    }
    open.set(JSON.stringify(m.id), { from: hop.from, to: hop.to });
    this.writer.write({
      type: 'request',
      ts,
      protocol: 'acp',
      from: hop.from,
      to: hop.to,
      id: m.id,
      method: hop.method,
      params: hop.params,
    });
  }

  private onReceived(open: Map<string, { from: string; to: string }>, m: unknown): void {
    if (!isJson(m) || 'method' in m || !('id' in m)) return;
    const key = JSON.stringify(m.id);
    const hop = open.get(key);
    if (!hop) return;
    open.delete(key);
    const isError = 'error' in m;
    this.writer.write({
      type: 'response',
      ts: this.writer.now(),
      from: hop.to,
      to: hop.from,
      id: m.id,
      is_error: isError,
      payload: isError ? m.error : (plainJson(m.result) ?? null),
    });
  }
}

import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * A conductor trace in the Rust SDK conductor's `.jsons` format (one JSON event a line, the shape
 * `TraceEvent` of rust-sdk src/agent-client-protocol-conductor/src/trace.rs serialises to, which
 * packages/tools/src/captures/capture.ts reads): each message once per hop of the chain, unwrapped
 * from its `proxy/successor` envelope, with that hop's id. Components are named `Client`,
 * `Proxy(n)` and `Agent`; `ts` is seconds since the trace started.
 */
export type TraceEvent =
  | {
      type: 'request';
      ts: number;
      protocol: 'acp';
      from: string;
      to: string;
      id: unknown;
      method: string;
      params: unknown;
    }
  | { type: 'response'; ts: number; from: string; to: string; id: unknown; is_error: boolean; payload: unknown }
  | { type: 'notification'; ts: number; protocol: 'acp'; from: string; to: string; method: string; params: unknown };

/** Writes trace events to a file, synchronously per event: a conductor killed mid-session leaves whole lines. */
export class TraceWriter {
  private fd: number | undefined;
  private readonly start = performance.now();

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }

  /** Seconds since the trace started, as the Rust conductor writes `ts`. */
  now(): number {
    return (performance.now() - this.start) / 1000;
  }

  write(event: TraceEvent): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, JSON.stringify(event) + '\n');
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The trace name of chain position `i`: -1 is the client, 0..n-1 the components, n the agent. */
export function nodeName(i: number, components: number): string {
  if (i < 0) return 'Client';
  return i >= components ? 'Agent' : `Proxy(${i})`;
}

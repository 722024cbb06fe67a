import type { WireRequestId } from './request-id.js';

/**
 * A request a peer is handling, as its handler sees it (the peer's `RequestContext`). Its `signal`
 * is made on first use: most requests are never cancelled, and an `AbortController` with its
 * listener was a relay's largest cost per request (a conductor hop handles four). A relay ties the
 * request it sends on to this one with the peer's `cancelWith` option instead, which makes none.
 */
export class InboundRequest {
  private controller: AbortController | undefined;
  private cancelled: { reason: unknown } | undefined;
  private listeners: Array<(reason: unknown) => void> | undefined;

  constructor(
    /** The request's id, echoed as sent. */
    readonly id: WireRequestId,
    readonly method: string,
  ) {}

  /** Fires on `$/cancel_request` for this id or when the connection closes. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.cancelled.reason);
    }
    return this.controller.signal;
  }

  /** True once cancelled (as `signal.aborted`, without making the signal). */
  get aborted(): boolean {
    return this.cancelled !== undefined;
  }

  /** Cancels it once: aborts the signal if one was made, and calls every {@link onCancel} listener. */
  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = { reason };
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const f of listeners) f(reason);
  }

  /** Calls `f` once when it is cancelled; returns how to stop listening. Not called when already cancelled. */
  onCancel(f: (reason: unknown) => void): () => void {
    (this.listeners ??= []).push(f);
    return () => {
      const i = this.listeners?.indexOf(f) ?? -1;
      if (i >= 0) this.listeners?.splice(i, 1);
    };
  }
}

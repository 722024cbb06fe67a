import type { CloseInfo } from '@acp-kit/protocol/rpc';

/** A connection whose unsent bytes count against the budget. */
export interface UnreadHolder {
  /** Bytes sent to the peer and not yet handed to the OS (exact at the moment it is read). */
  readonly bufferedBytes: number;
  close(info: CloseInfo): void;
}

/**
 * The server's budget of unread bytes across all its connections: the per-connection limit alone
 * lets every connection hold its limit at once (64 MiB times 256 connections). Connections report
 * what they hold after each write (O(1)); bytes they hand to the OS are not reported, so the total
 * only overestimates, and it is recounted exactly before anyone is cut. Over the budget, the
 * connections holding the most (the slowest readers) are cut first until the rest fits.
 */
export class UnreadBudget {
  private readonly held = new Map<UnreadHolder, number>();
  private reported = 0;

  constructor(
    /** Unread bytes allowed across all connections. */
    readonly maxBytes: number,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** `holder` now holds `bytes` unread. */
  report(holder: UnreadHolder, bytes: number): void {
    this.reported += bytes - (this.held.get(holder) ?? 0);
    this.held.set(holder, bytes);
    if (this.reported > this.maxBytes) this.enforce();
  }

  /** `holder` ended. */
  forget(holder: UnreadHolder): void {
    this.reported -= this.held.get(holder) ?? 0;
    this.held.delete(holder);
  }

  /** Unread bytes across the connections now (recounted). */
  get totalBytes(): number {
    this.recount();
    return this.reported;
  }

  private recount(): void {
    this.reported = 0;
    for (const h of this.held.keys()) {
      const b = h.bufferedBytes;
      this.held.set(h, b);
      this.reported += b;
    }
  }

  private enforce(): void {
    this.recount();
    if (this.reported <= this.maxBytes) return;
    const slowest = [...this.held].sort((a, b) => b[1] - a[1]);
    for (const [holder, bytes] of slowest) {
      if (this.reported <= this.maxBytes) break;
      this.forget(holder);
      const reason = `unread bytes budget exceeded: the server holds at most ${this.maxBytes} unread bytes across all connections (acp-kit serve --max-unread-bytes) and this connection, the slowest reader, left ${bytes} unread`;
      this.log(`cutting a connection: ${reason}`);
      holder.close({ reason, unreadCut: true });
    }
  }
}

import type { CloseInfo, InvalidLine, Transport, TransportHandlers } from '@acp-kit/protocol/rpc';

/**
 * A {@link Transport} fed by the bridge's own reader: the bridge reads each side itself (it must
 * see `initialize` before it knows whether to translate at all) and hands the messages to a
 * `JsonRpcPeer` only once it translates. Writes go straight to the real transport.
 */
export class RelayTransport implements Transport {
  private handlers: TransportHandlers | undefined;
  private closedInfo: CloseInfo | undefined;

  constructor(
    private readonly real: Transport,
    private readonly onSend?: (message: object) => void,
  ) {}

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    if (this.closedInfo) handlers.onClose(this.closedInfo);
  }

  /** A message the real transport read. */
  deliver(message: unknown): void {
    this.handlers?.onMessage(message);
  }

  invalidLine(info: InvalidLine): void {
    this.handlers?.onInvalidLine(info);
  }

  /** The real transport ended. */
  end(info: CloseInfo): void {
    if (this.closedInfo) return;
    this.closedInfo = info;
    this.handlers?.onClose(info);
  }

  send(message: object): void {
    this.real.send(message);
    this.onSend?.(message);
  }

  whenWritable(): Promise<void> {
    return this.real.whenWritable();
  }

  flush(): Promise<void> {
    return this.real.flush();
  }

  close(): void {
    // the bridge owns the real transports and ends them itself (after the last answer is flushed)
  }
}

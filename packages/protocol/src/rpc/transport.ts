/** Why a connection ended; carried by the error every pending request is rejected with. */
export interface CloseInfo {
  /** Human-readable cause, e.g. `agent exited with code 1`. */
  reason: string;
  exitCode?: number | null;
  signal?: string | null;
  /** The last lines the peer process wrote to stderr, when known. */
  stderrTail?: string;
  error?: Error;
  /**
   * The peer left too much unread (its own limit or a server's budget across connections): the
   * connection is cut without a close handshake, which it would not read either.
   */
  unreadCut?: boolean;
}

/** A line that could not be used as a JSON-RPC message. */
export interface InvalidLine {
  /** The raw line (cut to 200 characters) */
  line: string;
  error: Error;
}

export interface TransportHandlers {
  /** One parsed JSON value per call, in arrival order. */
  onMessage(message: unknown): void;
  /** A line that was not JSON (or was too long); the transport goes on reading. */
  onInvalidLine(info: InvalidLine): void;
  /**
   * A message nested deeper than the transport's limit (`MAX_JSON_DEPTH` = 128 by default): it must
   * not reach handlers, but its envelope (id, method) is intact so it can be refused. Without this
   * handler the line is reported through {@link TransportHandlers.onInvalidLine}.
   */
  onTooDeep?(message: unknown, limit: number): void;
  /** Called once when the stream ends or breaks. */
  onClose(info: CloseInfo): void;
}

/**
 * A message transport: a reader that yields parsed JSON values and a writer that takes
 * objects. Framing lives here, JSON-RPC semantics in {@link JsonRpcPeer}.
 */
export interface Transport {
  start(handlers: TransportHandlers): void;
  /** Queues a message; writes are ordered and coalesced. */
  send(message: object): void;
  /** Resolves when the write buffer has drained below its high-water mark. */
  whenWritable(): Promise<void>;
  /** Resolves once everything queued so far has been handed to the OS. */
  flush(): Promise<void>;
  close(info?: CloseInfo): void;
}

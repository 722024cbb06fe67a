/**
 * The parts of a `ws` WebSocket that {@link WebSocketTransport} uses, as a structural type: the
 * transport's public declarations name it instead of `import('ws')`, so an app that installs
 * acp-kit compiles them without `@types/ws` (a devDependency here). A `ws` WebSocket fits it as is.
 * @module
 */

/** A message's payload as `ws` delivers it (its `RawData`). */
export type WebSocketData = Buffer | ArrayBuffer | Buffer[];

/** A WebSocket from the `ws` package (or anything with the same events and methods). */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  on(event: 'message', listener: (data: WebSocketData, isBinary: boolean) => void): unknown;
  on(event: 'open', listener: () => void): unknown;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  send(data: string, cb?: (err?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
}

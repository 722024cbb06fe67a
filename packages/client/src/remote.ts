import type { Transport } from '@acp-kit/protocol/rpc';

/** Where a remote agent listens, and how to authenticate. */
export interface RemoteTarget {
  /** `ws://` / `wss://` (WebSocket profile) or `http://` / `https://` (Streamable HTTP) URL of the `/acp` endpoint. */
  url: string;
  /** Bearer token, sent in the `Authorization` header. */
  token?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** `http(s)://` URLs: speak HTTP/2 as the remote transport RFD requires (cleartext h2c for `http://`, e.g. `acp-kit serve --http2-port`). */
  http2?: boolean;
}

/**
 * Opens the transport for a remote ACP endpoint, picked by the URL's scheme. The transport
 * modules (and `ws`) are loaded only here, so local-only clients never load them.
 */
export async function openRemoteTransport(target: RemoteTarget): Promise<Transport> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new TypeError(
      `agent URL ${JSON.stringify(target.url)} is not a URL: use ws://host:port/acp or http://host:port/acp`,
    );
  }
  if (url.searchParams.has('token') || url.searchParams.has('access_token')) {
    throw new TypeError('put the token in the token option (sent as Authorization: Bearer), not in the URL query');
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:') {
    const { connectWebSocketTransport } = await import('@acp-kit/protocol/websocket');
    return connectWebSocketTransport(url.href, { token: target.token, headers: target.headers });
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const { HttpClientTransport } = await import('@acp-kit/protocol/http');
    return new HttpClientTransport(url.href, { token: target.token, headers: target.headers, http2: target.http2 });
  }
  throw new TypeError(`agent URL scheme ${url.protocol} is not supported: use ws://, wss://, http:// or https://`);
}

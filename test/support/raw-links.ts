// Raw links to an ACP peer for tests about exact bytes: each sends one message text as given and
// hands back the text of each response as it came off the wire (stdio line, WebSocket frame, SSE
// `data`), notifications skipped. Nothing is parsed on the way, so a rounded id shows.
import WebSocket from 'ws';
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID } from '../../packages/protocol/src/rpc/http-headers.js';
import type { RawChild } from './raw-child.js';

/** One connection, spoken to with raw text. */
export interface RawLink {
  send(text: string): Promise<void>;
  /** The next response's text (a message without `method`), waiting up to `ms`. */
  response(ms?: number): Promise<string>;
  close(): Promise<void>;
}

const isResponse = (text: string): boolean => {
  try {
    const m: unknown = JSON.parse(text);
    return typeof m === 'object' && m !== null && !('method' in m);
  } catch {
    return true;
  }
};

/** A queue of texts with waiters, shared by the links. */
class Inbox {
  private readonly texts: string[] = [];
  private waiters: Array<() => void> = [];
  closed: string | undefined;
  push(text: string): void {
    if (!isResponse(text)) return;
    this.texts.push(text);
    this.wake();
  }
  end(why: string): void {
    this.closed = why;
    this.wake();
  }
  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
  async next(ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    while (this.texts.length === 0) {
      if (this.closed !== undefined) throw new Error(`the link closed: ${this.closed}`);
      if (Date.now() > deadline) throw new Error(`no response within ${ms} ms`);
      // woken by a text or the end, else at the deadline (no timer left behind either way)
      await new Promise<void>((r) => {
        const timer = setTimeout(r, deadline - Date.now() + 1);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
    return this.texts.shift() ?? '';
  }
}

/** A child process on stdio (an agent, a proxy). */
export function stdioLink(child: RawChild): RawLink {
  return {
    send: async (text) => child.write(`${text}\n`),
    response: async (ms = 30_000) => {
      for (;;) {
        const line = await child.line(ms);
        if (isResponse(line)) return line;
      }
    },
    close: async () => child.kill(),
  };
}

/** A WebSocket connection to `url` with a bearer token. */
export async function wsLink(url: string, token: string): Promise<RawLink> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  const inbox = new Inbox();
  ws.on('message', (d) => inbox.push(d.toString('utf8')));
  ws.on('close', (code, reason) => inbox.end(`WebSocket closed ${code} ${reason.toString()}`));
  ws.on('error', (e) => inbox.end(e.message));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return {
    send: async (text) => ws.send(text),
    response: (ms = 30_000) => inbox.next(ms),
    close: async () => ws.close(),
  };
}

/**
 * A Streamable HTTP connection: `initializeText` is POSTed first (its answer is the first
 * response), then the event stream is read; every later message is a POST.
 */
export async function httpLink(url: string, token: string, initializeText: string): Promise<RawLink> {
  const inbox = new Inbox();
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(url, { method: 'POST', headers, body: initializeText });
  const id = init.headers.get(HEADER_CONNECTION_ID);
  inbox.push(await init.text());
  if (init.status !== 200 || id === null) throw new Error(`initialize refused: HTTP ${init.status}`);
  const abort = new AbortController();
  const stream = await fetch(url, {
    headers: { ...headers, accept: 'text/event-stream', [HEADER_CONNECTION_ID]: id },
    signal: abort.signal,
  });
  if (!stream.body) throw new Error('no event stream');
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buf.indexOf('\n\n')) !== -1) {
          const event = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6));
          if (data.length > 0) inbox.push(data.join('\n'));
        }
      }
      inbox.end('the event stream ended');
    } catch (e) {
      inbox.end(String(e));
    }
  })();
  return {
    send: async (text) => {
      // session-scoped messages carry the session header the profile requires (a text that is not
      // JSON, or names no session, goes without it, as given)
      const session = sessionOf(text);
      const r = await fetch(url, {
        method: 'POST',
        headers: {
          ...headers,
          [HEADER_CONNECTION_ID]: id,
          ...(session !== undefined ? { [HEADER_SESSION_ID]: session } : {}),
        },
        body: text,
      });
      const body = await r.text();
      if (r.status !== 202) inbox.push(JSON.stringify({ httpStatus: r.status, body }));
    },
    response: (ms = 30_000) => inbox.next(ms),
    close: async () => {
      abort.abort();
      await fetch(url, { method: 'DELETE', headers: { ...headers, [HEADER_CONNECTION_ID]: id } }).catch(
        () => undefined,
      );
    },
  };
}

/** `params.sessionId` of a message text, if it is JSON and has one. */
function sessionOf(text: string): string | undefined {
  try {
    const m: unknown = JSON.parse(text);
    const p = typeof m === 'object' && m !== null && 'params' in m ? (m as { params: unknown }).params : undefined;
    const s =
      typeof p === 'object' && p !== null && 'sessionId' in p ? (p as { sessionId: unknown }).sessionId : undefined;
    return typeof s === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

// Issue 25 item 4: a Streamable HTTP event stream that drops mid-turn is resumed with
// Last-Event-ID (every event carries an id, the server keeps a replay window per stream), so the
// client gets every update once, in order, without a new session/resume; and an id older than
// the window gets a clear, specific refusal.
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { createParser } from 'eventsource-parser';
import { afterEach, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { isObj } from '../../protocol/src/codec/util.js';
import type { AcpServer } from '../src/index.js';
import { chunksPrompt, startE2EServer, TOKEN } from '../../../test/support/remote.js';

const servers: AcpServer[] = [];
const clients: ClientConnection[] = [];
const relays: Server[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const r of relays.splice(0)) r.close();
  await Promise.all(servers.splice(0).map((s) => s.close(1000)));
});

/** A loopback relay that knows which of its connections carry an event stream (a GET asking for text/event-stream). */
async function startSseRelay(port: number): Promise<{ url: string; cutStreams(): number; resumes: string[] }> {
  const streams = new Set<Socket>();
  const resumes: string[] = [];
  const server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    client.on('error', () => undefined).on('close', () => upstream.destroy());
    upstream.on('error', () => undefined).on('close', () => client.destroy());
    client.once('data', (first: Buffer) => {
      const head = first.toString('latin1');
      if (head.startsWith('GET ') && /accept: text\/event-stream/i.test(head)) {
        streams.add(client);
        const id = /last-event-id: (\S+)/i.exec(head);
        if (id?.[1] !== undefined) resumes.push(id[1]);
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  relays.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${addr.port}/acp`,
    resumes,
    cutStreams() {
      const n = streams.size;
      for (const s of streams) s.destroy();
      streams.clear();
      return n;
    },
  };
}

it('an event stream dropped mid-turn is resumed with Last-Event-ID: every update once, in order, no session/resume', async () => {
  const server = await startE2EServer();
  servers.push(server);
  const relay = await startSseRelay(server.port);
  const sent: string[] = [];
  const updates: Array<{ sessionUpdate: string; content?: { text?: string } }> = [];
  const conn = await connect({
    url: relay.url,
    token: TOKEN,
    tap: {
      sent: (m) => {
        if (isObj(m) && typeof m.method === 'string') sent.push(m.method);
      },
      received: () => undefined,
    },
  });
  clients.push(conn);
  const s = await conn.newSession({ cwd: '/tmp' });
  let cut = 0;
  s.onUpdate((u) => {
    updates.push(u);
    // the network drops the event streams (both sides of their sockets) while the turn streams
    if (cut === 0 && updates.length >= 20) cut = relay.cutStreams();
  });
  const answer = await s.prompt(chunksPrompt(200, 10, 5));
  expect(cut).toBeGreaterThan(0);
  expect(answer.stopReason).toBe('end_turn');
  // the client resumed the streams it lost, saying where it was
  expect(relay.resumes.length).toBeGreaterThan(0);
  for (const id of relay.resumes) expect(id).toMatch(/^\d+$/);
  // exactly what the agent sent, once each, in order
  const texts = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content?.text);
  expect(texts).toEqual(Array.from({ length: 200 }, (_, i) => `c${i} `));
  // and no new connection or session/resume was needed: the same connection carried on
  expect(sent).toEqual(['initialize', 'session/new', 'session/prompt']);
  expect(server.connectionCount).toBe(1);
}, 30_000);

/** One event stream read with fetch: its events as they come, and a way to drop it. */
function openStream(
  url: string,
  headers: Record<string, string>,
): {
  events: Array<{ id?: string; data: string }>;
  response: Promise<Response>;
  next(pred: (data: string) => boolean): Promise<string>;
  drop(): void;
} {
  const abort = new AbortController();
  const events: Array<{ id?: string; data: string }> = [];
  let waiters: Array<() => void> = [];
  const parser = createParser({
    onEvent: (e) => {
      events.push({ ...(e.id !== undefined ? { id: e.id } : {}), data: e.data });
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
  });
  const response = fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  void response.then(
    async (res) => {
      if (res.status !== 200 || !res.body) return;
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body) parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // dropped by the test
      }
    },
    () => undefined,
  );
  const next = async (pred: (data: string) => boolean): Promise<string> => {
    for (;;) {
      const hit = events.find((e) => pred(e.data));
      if (hit) return hit.data;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { events, response, next, drop: () => abort.abort() };
}

it('a Last-Event-ID older than the replay window is refused with 410 naming the ids kept; one inside it replays exactly what followed', async () => {
  const server = await startE2EServer({ replayWindowBytes: 400 });
  servers.push(server);
  const auth = { authorization: `Bearer ${TOKEN}` };
  const post = (body: object, extra: Record<string, string> = {}): Promise<Response> =>
    fetch(server.url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', ...extra },
      body: JSON.stringify(body),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
  expect(init.status).toBe(200);
  const conn = init.headers.get('acp-connection-id') ?? '';
  await init.text();
  const first = openStream(server.url, { ...auth, 'acp-connection-id': conn });
  expect((await first.response).status).toBe(200);
  expect(
    (
      await post(
        { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } },
        { 'acp-connection-id': conn },
      )
    ).status,
  ).toBe(202);
  const created: unknown = JSON.parse(await first.next((d) => d.includes('"id":2')));
  const sessionId =
    isObj(created) && isObj(created.result) && typeof created.result.sessionId === 'string'
      ? created.result.sessionId
      : '';
  expect(sessionId, JSON.stringify(created)).not.toBe('');
  const prompt = {
    jsonrpc: '2.0',
    id: 3,
    method: 'session/prompt',
    params: { sessionId, prompt: [{ type: 'text', text: chunksPrompt(30) }] },
  };
  expect((await post(prompt, { 'acp-connection-id': conn, 'acp-session-id': sessionId })).status).toBe(202);
  await first.next((d) => d.includes('"id":3') && d.includes('stopReason'));
  // every event has an id, 1, 2, 3... in order
  const ids = first.events.map((e) => e.id);
  expect(ids).toEqual(first.events.map((_, i) => String(i + 1)));
  const last = first.events.length;
  first.drop();

  const tooOld = await fetch(server.url, {
    headers: { ...auth, accept: 'text/event-stream', 'acp-connection-id': conn, 'last-event-id': '1' },
  });
  expect(tooOld.status).toBe(410);
  expect(await tooOld.text()).toMatch(
    new RegExp(
      `^Last-Event-ID 1 is older than this stream's replay window \\(it keeps events \\d+-${last}\\): events 2-\\d+ cannot be sent again; resume the session \\(session/resume\\) instead`,
    ),
  );

  const never = await fetch(server.url, {
    headers: { ...auth, accept: 'text/event-stream', 'acp-connection-id': conn, 'last-event-id': String(last + 5) },
  });
  expect(never.status).toBe(400);
  expect(await never.text()).toContain(`was never sent on this stream (its last event id is ${last})`);

  const resumed = openStream(server.url, { ...auth, 'acp-connection-id': conn, 'last-event-id': String(last - 2) });
  expect((await resumed.response).status).toBe(200);
  await resumed.next((d) => d.includes('"id":3') && d.includes('stopReason'));
  expect(resumed.events).toEqual(first.events.slice(last - 2));
  resumed.drop();
}, 30_000);

/**
 * A hand-written server for the client's side: the first stream sends events 1-2 and is destroyed;
 * the resume is answered by `onResume` (with what the client said in Last-Event-ID).
 */
async function fakeServer(
  onResume: (lastEventId: string | undefined, res: import('node:http').ServerResponse) => void,
): Promise<{ url: string; close(): void }> {
  const { createServer: createHttpServer } = await import('node:http');
  let gets = 0;
  const http = createHttpServer((req, res) => {
    if (req.method === 'POST') {
      res.writeHead(200, { 'content-type': 'application/json', 'acp-connection-id': 'c1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
      return;
    }
    if (req.method !== 'GET') return void res.writeHead(202).end();
    if (gets++ > 0)
      return onResume(typeof req.headers['last-event-id'] === 'string' ? req.headers['last-event-id'] : undefined, res);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      'id: 1\ndata: {"jsonrpc":"2.0","method":"n","params":{"i":1}}\n\nid: 2\ndata: {"jsonrpc":"2.0","method":"n","params":{"i":2}}\n\n',
    );
    // the network drops once the client has both (it acknowledges by POSTing)
    setTimeout(() => res.socket?.destroy(), 50);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const addr = http.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${addr.port}/acp`,
    close: () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

it("the client resumes with the last id it got and takes what follows; a refused resume closes it with the server's reason", async () => {
  const { HttpClientTransport } = await import('../../protocol/src/rpc/http-transport.js');
  const run = async (
    onResume: Parameters<typeof fakeServer>[0],
  ): Promise<{ got: unknown[]; closed: Promise<string>; end(): void }> => {
    const fake = await fakeServer(onResume);
    const got: unknown[] = [];
    let closedWith!: (r: string) => void;
    const closed = new Promise<string>((r) => (closedWith = r));
    const t = new HttpClientTransport(fake.url);
    t.start({ onMessage: (m) => got.push(m), onInvalidLine: () => undefined, onClose: (i) => closedWith(i.reason) });
    t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2 } });
    void closed.finally(fake.close);
    return { got, closed, end: () => t.close({ reason: 'test over', error: new Error('test over') }) };
  };
  const asked: Array<string | undefined> = [];
  let arrived!: () => void;
  const third = new Promise<void>((r) => (arrived = r));
  const resumed = await run((lastEventId, res) => {
    asked.push(lastEventId);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 3\ndata: {"jsonrpc":"2.0","method":"n","params":{"i":3}}\n\n');
  });
  const resumedGot = resumed.got;
  // the third message is the last one: wait for it by looking at what arrived after each message
  const poll = setInterval(() => {
    if (resumedGot.length >= 4) arrived();
  }, 5);
  await third;
  clearInterval(poll);
  resumed.end();
  expect(asked).toEqual(['2']);
  expect(resumedGot.map((m) => (isObj(m) && isObj(m.params) ? m.params.i : 'answer'))).toEqual(['answer', 1, 2, 3]);

  const refused = await run((_id, res) => {
    res.writeHead(410, { 'content-type': 'text/plain' });
    res.end("Last-Event-ID 2 is older than this stream's replay window");
  });
  expect(await refused.closed).toBe(
    "event stream failed: event stream resume refused: HTTP 410: Last-Event-ID 2 is older than this stream's replay window",
  );
}, 20_000);

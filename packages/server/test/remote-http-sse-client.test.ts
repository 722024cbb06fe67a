// The Streamable HTTP client's event-stream parser (issue 13, Performance: it scans with a cursor
// instead of slicing per line): events split anywhere across network writes, CRLF and LF line ends,
// multi-line data, comments and other fields, and UTF-8 split inside a character all arrive whole.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClientTransport } from '../../protocol/src/rpc/http-transport.js';

let http: Server | undefined;
let client: HttpClientTransport | undefined;
afterEach(async () => {
  client?.close({ reason: 'test over', error: new Error('test over') });
  client = undefined;
  http?.closeAllConnections();
  await new Promise((r) => (http ? http.close(r) : r(undefined)));
  http = undefined;
});

describe('HttpClientTransport event stream parsing', () => {
  it('events split at every byte boundary, CRLF and LF, multi-line data, comments and split UTF-8 arrive whole and in order', async () => {
    const messages = [
      { jsonrpc: '2.0', method: 'a', params: { text: 'héllo → wörld 👋' } },
      { jsonrpc: '2.0', method: 'b', params: { n: 2 } },
      { jsonrpc: '2.0', method: 'c', params: { text: 'line\nbreak in a string' } },
      { jsonrpc: '2.0', method: 'd', params: {} },
    ];
    const json = messages.map((m) => JSON.stringify(m));
    // the third message's JSON spread over two data lines (joined by '\n', which JSON allows between tokens)
    const split = json[2].indexOf(',');
    const stream = Buffer.from(
      `: keep-alive\n\n` +
        `data: ${json[0]}\r\n\r\n` +
        `event: message\nid: 7\ndata:${json[1]}\n\n` +
        `data: ${json[2].slice(0, split + 1)}\r\ndata: ${json[2].slice(split + 1)}\r\n\r\n` +
        `retry: 10\n: comment\ndata: ${json[3]}\n\n`,
      'utf8',
    );
    http = createServer((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'application/json', 'acp-connection-id': 'c1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
        return;
      }
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        // one byte per write, each after a macrotask: the client's reads end anywhere, inside a
        // UTF-8 character, between CR and LF, inside "data:"
        let i = 0;
        const next = (): void => {
          if (i >= stream.length || res.destroyed) return;
          res.write(stream.subarray(i, ++i));
          setImmediate(next);
        };
        next();
        return;
      }
      res.writeHead(202).end();
    });
    await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
    const port = (http.address() as { port: number }).port;
    const received: unknown[] = [];
    const invalid: string[] = [];
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    client = new HttpClientTransport(`http://127.0.0.1:${port}/acp`);
    client.start({
      onMessage: (m) => {
        received.push(m);
        if (received.length === messages.length + 1) done();
      },
      onInvalidLine: (i) => invalid.push(i.line),
      onClose: () => undefined,
    });
    client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2 } });
    await all;
    expect(invalid).toEqual([]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, ...messages]);
  });
});

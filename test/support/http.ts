// A plain HTTP request to a local test server (the inspector's), with what the tests look at.
import { request, type IncomingHttpHeaders } from 'node:http';

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * `method` `path` on 127.0.0.1:`port` with `headers` (Node adds `Host: 127.0.0.1:<port>` unless given).
 * An event stream never ends: for one, the reply holds its first chunk and the request is closed.
 */
export function httpGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        res.once('data', (d: string) => {
          resolve({ status: res.statusCode!, headers: res.headers, body: d });
          req.destroy();
        });
        return;
      }
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

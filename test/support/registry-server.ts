/** A registry.json served over loopback HTTP with an ETag, for the registry source tests. */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RegistryServer {
  url: string;
  /** Replaces the body served (a new ETag follows from the new text). */
  setBody(text: string): void;
  /** One entry per request: the If-None-Match it sent and the status it got. */
  readonly requests: Array<{ ifNoneMatch?: string; status: number }>;
  close(): Promise<void>;
}

/** Serves `body` at any path; answers 304 to a matching If-None-Match. */
export async function startRegistryServer(body: string): Promise<RegistryServer> {
  let text = body;
  const requests: Array<{ ifNoneMatch?: string; status: number }> = [];
  const etag = () => `"${createHash('sha256').update(text).digest('hex').slice(0, 16)}"`;
  const server: Server = createServer((req, res) => {
    const inm = req.headers['if-none-match'];
    const status = inm === etag() ? 304 : 200;
    requests.push({ ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}), status });
    res.writeHead(status, { etag: etag(), 'content-type': 'application/json' });
    res.end(status === 200 ? text : undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/registry.json`,
    setBody: (t) => {
      text = t;
    },
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A registry.json text of these manifests. */
export const registryText = (agents: unknown[]): string => JSON.stringify({ version: '1.0.0', agents, extensions: [] });

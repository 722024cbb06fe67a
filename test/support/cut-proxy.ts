// A loopback TCP relay in front of a server, whose open connections a test can cut: `cut()` destroys
// both sockets (a dropped network path, whatever the profile: WebSocket, SSE stream);
// `severClients()` loses only the client's side (as when a laptop changes networks): the server's
// side stays up and what it writes is read and dropped, so the server keeps a turn running.
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';

export interface CutProxy {
  /** `http://127.0.0.1:<port>/acp` of the relay */
  readonly url: string;
  readonly port: number;
  /** Connections relayed so far (accepted sockets). */
  readonly accepted: number;
  /** Destroys every relayed connection open now; new ones are still relayed. */
  cut(): void;
  /** Destroys the client-side sockets open now; their server-side sockets stay open and drained. */
  severClients(): void;
  /** Holds new connections (accepted, not relayed) until {@link release}: a network that is down for a while. */
  hold(): void;
  /** Relays the held connections and every new one. */
  release(): void;
  /** Points new connections at another port (a restarted server). */
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  let target = targetPort;
  let accepted = 0;
  /** relayed pairs: client socket -> its upstream */
  const pairs = new Map<Socket, Socket>();
  /** upstreams whose client was severed: kept open and drained until the server closes them */
  const orphans = new Set<Socket>();
  let held: Socket[] | undefined;
  const relay = (client: Socket): void => {
    const upstream = tcpConnect(target, '127.0.0.1');
    pairs.set(client, upstream);
    client
      .on('error', () => undefined)
      .on('close', () => {
        pairs.delete(client);
        if (orphans.has(upstream)) return;
        upstream.destroy();
      });
    upstream
      .on('error', () => undefined)
      .on('close', () => {
        orphans.delete(upstream);
        client.destroy();
      });
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server: Server = createServer((client) => {
    accepted++;
    if (held) {
      held.push(client);
      client.on('error', () => client.destroy());
    } else relay(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${addr.port}/acp`,
    port: addr.port,
    get accepted() {
      return accepted;
    },
    cut() {
      for (const [client, upstream] of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    severClients() {
      for (const [client, upstream] of [...pairs]) {
        orphans.add(upstream);
        // the server's side lives on: what it writes is read and dropped (no backpressure on its turn)
        upstream.unpipe(client);
        upstream.on('data', () => undefined);
        client.destroy();
      }
    },
    hold() {
      held ??= [];
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const c of waiting) if (!c.destroyed) relay(c);
    },
    retarget(port) {
      target = port;
    },
    close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const s of [...orphans, ...(held ?? [])]) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

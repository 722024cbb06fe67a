// A loopback TCP relay in front of a server that can lose the client's side of its connections
// only: the client sees its sockets die, the server's side stays up and what it writes is read and
// dropped (as when a laptop changes networks), so the server keeps a turn running. New connections
// can be held (a network that is down for a while) and are relayed once released.
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';

export interface HalfCutRelay {
  /** `http://127.0.0.1:<port>/acp` of the relay */
  readonly url: string;
  readonly port: number;
  /** Destroys the client-side sockets open now; their server-side sockets stay open and drained. */
  severClients(): void;
  /** Holds new connections (accepted, not relayed) until {@link release}. */
  hold(): void;
  /** Relays the held connections and every new one. */
  release(): void;
  /** Destroys everything and stops listening. */
  close(): Promise<void>;
}

export async function startHalfCutRelay(targetPort: number): Promise<HalfCutRelay> {
  const clients = new Set<Socket>();
  const upstreams = new Set<Socket>();
  let held: Socket[] | undefined;
  const relay = (client: Socket): void => {
    const upstream = tcpConnect(targetPort, '127.0.0.1');
    clients.add(client);
    upstreams.add(upstream);
    client.on('error', () => undefined).on('close', () => {
      clients.delete(client);
      // the server's side lives on: what it writes is read and dropped (no backpressure on its turn)
      upstream.unpipe(client);
      upstream.on('data', () => undefined);
    });
    upstream.on('error', () => undefined).on('close', () => {
      upstreams.delete(upstream);
      client.destroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server: Server = createServer((client) => {
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
    severClients() {
      for (const c of [...clients]) c.destroy();
    },
    hold() {
      held ??= [];
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const c of waiting) if (!c.destroyed) relay(c);
    },
    close() {
      for (const s of [...clients, ...upstreams, ...(held ?? [])]) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

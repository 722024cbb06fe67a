// A loopback TCP relay in front of a server, whose open connections a test can cut (both
// sockets destroyed): a dropped network path, whatever the profile (WebSocket, SSE stream).
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';

export interface CutProxy {
  /** `http://127.0.0.1:<port>/acp` of the relay */
  readonly url: string;
  readonly port: number;
  /** Connections relayed so far (accepted sockets). */
  readonly accepted: number;
  /** Destroys every relayed connection open now; new ones are still relayed. */
  cut(): void;
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
  const open = new Set<Socket>();
  let held: Socket[] | undefined;
  const relay = (client: Socket): void => {
    const upstream = tcpConnect(target, '127.0.0.1');
    open.add(client);
    open.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
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
      for (const s of [...open]) s.destroy();
      open.clear();
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
      for (const s of [...open, ...(held ?? [])]) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

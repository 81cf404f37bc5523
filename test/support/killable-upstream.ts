/**
 * A TCP front for the simulator that a test can kill and bring back, on the same port: what the
 * gateway sees when the upstream process dies (in-flight requests lose their connection, new ones
 * are refused) and when it is restarted. While `hold()` is on, requests reach the front but are
 * not forwarded, so a test knows a request is in flight before it kills the upstream.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface KillableUpstream {
  /** The URL the gateway is given (the front's port, the simulator's path). */
  readonly url: string;
  /** Requests that arrive from now on stay at the front (bytes kept, nothing forwarded). */
  hold(): void;
  /** Resolves once a held request's first bytes have arrived (`held()` counts them). */
  heldRequest(): Promise<void>;
  readonly held: number;
  /** Destroys every connection and stops listening: new connections are refused. */
  kill(): Promise<void>;
  /** Listens again on the same port, forwarding everything. */
  revive(): Promise<void>;
  close(): Promise<void>;
}

export async function startKillableUpstream(simulatorUrl: string): Promise<KillableUpstream> {
  const target = new URL(simulatorUrl);
  const sockets = new Set<Socket>();
  let holding = false;
  let held = 0;
  let waiters: (() => void)[] = [];

  const onConnection = (client: Socket) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    // Per chunk, not per connection: the gateway reuses keep-alive connections.
    client.on('data', (chunk) => {
      if (!holding) {
        upstream.write(chunk);
        return;
      }
      held += 1;
      for (const wake of waiters) wake();
      waiters = [];
    });
    upstream.pipe(client);
  };

  let server: Server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    hold() {
      holding = true;
    },
    heldRequest() {
      const seen = held;
      return new Promise<void>((resolve) => {
        if (held > seen) resolve();
        else waiters.push(resolve);
      });
    },
    get held() {
      return held;
    },
    async kill() {
      holding = false;
      await stop();
    },
    async revive() {
      server = createServer(onConnection);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      if (server.listening) await stop();
    },
  };
}

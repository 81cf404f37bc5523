/**
 * Several gateway replicas on one simulator, told apart at the simulator: each replica is given a
 * door of its own — a port whose connections are handed to the simulator's HTTP server — so the
 * Host header of every call says which replica sent it. Counts, per replica, the calls that arrived
 * (on arrival: a call the test holds at the simulator is counted) and the answers by status.
 * Calls through the simulator's own URL (another client of the token, the test's `/__sim/` calls)
 * are no replica's and are not counted.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { RunningSimulator } from './simulator-harness.ts';

export interface ReplicaDoors {
  /** Replica i's `UPSTREAM_URL`. */
  readonly urls: readonly string[];
  /** Which replica a request came through (by its Host header), or undefined: none. */
  replicaOf(headers: { readonly host?: string | string[] | undefined }): number | undefined;
  /** Calls replica i sent that reached the simulator (held ones included). */
  sent(replica: number): number;
  /** What every replica sent, together. */
  sentByAll(): number;
  /** Answers with `status` the simulator gave replica i. */
  answered(replica: number, status: number): number;
  /** Answers with `status` to every replica, together. */
  answeredToAll(status: number): number;
  close(): Promise<void>;
}

export async function openReplicaDoors(
  sim: RunningSimulator,
  count: number,
): Promise<ReplicaDoors> {
  const server = sim.simulator.app.server;
  const listeners: Server[] = [];
  const sockets = new Set<Socket>();
  const hosts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const door = createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      server.emit('connection', socket);
    });
    door.listen(0, '127.0.0.1');
    await once(door, 'listening');
    listeners.push(door);
    hosts.push(`127.0.0.1:${(door.address() as AddressInfo).port}`);
  }
  const sent = hosts.map(() => 0);
  const answers = hosts.map(() => new Map<number, number>());
  const replicaOf: ReplicaDoors['replicaOf'] = (headers) => {
    const index = hosts.indexOf(String(headers.host));
    return index < 0 ? undefined : index;
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const replica = replicaOf(req.headers);
    if (replica === undefined) return;
    sent[replica]! += 1;
    res.once('finish', () => {
      const byStatus = answers[replica]!;
      byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
    });
  });
  const answered = (replica: number, status: number) => answers[replica]!.get(status) ?? 0;
  return {
    urls: hosts.map((host) => `http://${host}`),
    replicaOf,
    sent: (replica) => sent[replica]!,
    sentByAll: () => sent.reduce((sum, n) => sum + n, 0),
    answered,
    answeredToAll: (status) => hosts.reduce((sum, _, i) => sum + answered(i, status), 0),
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(
        listeners.map((door) => new Promise<void>((resolve) => door.close(() => resolve()))),
      );
    },
  };
}

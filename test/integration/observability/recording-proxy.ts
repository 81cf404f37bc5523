/**
 * An HTTP proxy between the gateway and the simulator that records what the upstream receives:
 * each request's method, path and headers (the simulator's own hook sees no headers). It can also
 * answer the next requests 503 itself, so a test decides which attempts fail (a retry, for one).
 */
import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Whether the proxy answered 503 instead of the simulator. */
  readonly failed: boolean;
}

export interface RecordingProxy {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The next `count` requests are answered 503 without reaching the simulator. */
  failNext(count: number): void;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  let failing = 0;
  const server = createServer((incoming, outgoing) => {
    const failed = failing > 0;
    if (failed) failing -= 1;
    requests.push({
      method: incoming.method ?? '',
      url: incoming.url ?? '',
      headers: incoming.headers,
      failed,
    });
    if (failed) {
      incoming.resume();
      outgoing
        .writeHead(503, { 'content-type': 'application/json' })
        .end('{"code":"UNAVAILABLE","message":"injected by the test proxy"}');
      return;
    }
    const proxied = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(count) {
      failing = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

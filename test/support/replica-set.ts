/**
 * Several gateways in the test's process on one upstream (one simulator), as replicas behind a load
 * balancer: each has its own Redis connection, so with a shared `REDIS_URL` and `REDIS_KEY_PREFIX`
 * they share Redis as separate processes would. For figures counted at the simulator.
 */
import { Writable } from 'node:stream';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createGateway, type Gateway } from '../../src/server/create-gateway.ts';
import { createLogger } from '../../src/server/logger.ts';

export interface Replica {
  readonly gateway: Gateway;
  readonly url: string;
  /** Posts an operation with `demo-token` (or `token`); the parsed body. */
  gql(query: string, variables?: Record<string, unknown>, token?: string): Promise<any>;
}

export async function startReplicas(
  count: number,
  upstreamUrl: string,
  env: Record<string, string>,
): Promise<Replica[]> {
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  return Promise.all(
    Array.from({ length: count }, async () => {
      const config = loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        ...env,
        UPSTREAM_URL: upstreamUrl,
        PORT: '0',
        HOST: '127.0.0.1',
      });
      const gateway = await createGateway(config, createLogger(config, quiet), upstreamUrl);
      const url = await gateway.listen();
      return {
        gateway,
        url,
        async gql(query: string, variables: Record<string, unknown> = {}, token = 'demo-token') {
          const res = await request(`${url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ query, variables }),
          });
          return res.body.json();
        },
      };
    }),
  );
}

/**
 * A gateway in-process on the embedded upstream simulator, configured as `npm start` configures it:
 * no `UPSTREAM_URL`, so the configuration resolves `UPSTREAM` to `embedded` and main.ts's part (a
 * simulator on a free port, handed to the gateway) is done here. For what only that mode shows.
 */
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createGateway } from '../../src/server/create-gateway.ts';
import { createLogger } from '../../src/server/logger.ts';
import { startSimulator } from './simulator-harness.ts';

export interface EmbeddedGateway {
  readonly url: string;
  close(): Promise<void>;
}

export async function startEmbeddedGateway(
  env: Record<string, string> = {},
): Promise<EmbeddedGateway> {
  const config = loadConfig({ NODE_ENV: 'test', ...env, PORT: '0', HOST: '127.0.0.1' });
  if (config.UPSTREAM !== 'embedded') throw new Error('startEmbeddedGateway: not embedded');
  const sim = await startSimulator({ ipLimits: false });
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  const gateway = await createGateway(config, createLogger(config, quiet), sim.url);
  const url = await gateway.listen();
  return {
    url,
    async close() {
      await gateway.close();
      await sim.close();
    },
  };
}

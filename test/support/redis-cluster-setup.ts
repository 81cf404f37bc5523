/**
 * Global set-up of the `cluster` vitest project: the Redis Cluster its files run on (three masters
 * and three replicas on 7000–7005, from redis-server). A cluster already up there is used and left
 * up; one started here is stopped after the run. Nothing is started when REDIS_CLUSTER_NODES names
 * a cluster of the developer's, or when `WEFT_TEST_WITHOUT=redis-cluster` skips the files. A cluster
 * that cannot start fails the files (test/support/redis.ts says why and how), never skips them.
 */
import { optedOut } from './requirements.ts';
import { startTestCluster } from './redis-cluster-launcher.ts';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.REDIS_CLUSTER_NODES || optedOut(process.env).has('redis-cluster')) {
    return undefined;
  }
  try {
    const cluster = await startTestCluster(7000);
    return () => cluster.stop();
  } catch (error) {
    process.stderr.write(`Redis Cluster did not start: ${(error as Error).message}\n`);
    return undefined;
  }
}

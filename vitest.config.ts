import { defineConfig } from 'vitest/config';

/**
 * The Redis-mode files that run a second time on a Redis Cluster (the `cluster` project): the
 * token-bucket scripts, the cache with tag versions, held replays, publish/subscribe, one fetch and
 * one poll loop across replicas, the send window, priorities and unproven tokens on shared buckets,
 * idempotency (and its records kept through an outage) and APQ across replicas, what lands in Redis
 * (and no secret), two replica processes.
 * Left out: the files that kill Redis (upstream death, Redis death; the cluster's own failover test
 * is test/e2e/efficiency/cluster-failover.test.ts) and the cross-replica fetch's figure (its flight
 * protocol runs on the cluster in cross-replica-flight.test.ts). Their tests without Redis are not
 * registered in the rerun (`describeWithoutRedis`, `rerunOnCluster`).
 */
const CLUSTER_FILES = [
  'test/unit/upstream/token-bucket.test.ts',
  'test/unit/upstream/upstream-cache.test.ts',
  'test/unit/server/held-replays.test.ts',
  'test/unit/upstream/redis-pub-sub.test.ts',
  'test/unit/upstream/cross-replica-flight.test.ts',
  'test/unit/hosting/replica-pollers.test.ts',
  'test/integration/production/idempotency.test.ts',
  'test/unit/server/redis-idempotency-store.test.ts',
  'test/integration/production/persisted-operations.test.ts',
  'test/integration/efficiency/redis-mode.test.ts',
  'test/integration/efficiency/send-window.test.ts',
  'test/integration/efficiency/priorities.test.ts',
  'test/integration/efficiency/unproven-tokens.test.ts',
  'test/integration/production/secret-canaries.test.ts',
  'test/e2e/efficiency/two-replicas.test.ts',
];

export default defineConfig({
  resolve: {
    // One graphql for everything: Vite would hand our sources graphql's ESM build while packages
    // loaded by Node (Apollo, graphql-tools) get its CommonJS build, and graphql refuses schemas
    // and errors that cross the two ("another module or realm").
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // After the default summary: what `WEFT_TEST_WITHOUT` skipped (test/support/requirements.ts).
    reporters: ['default', './test/support/skipped-requirements-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: integration files each start a simulator and a gateway; keep the pool small.
    maxWorkers: 2,
    // One kind at a time: `npm run test:unit`, `test:integration`, `test:e2e` (`--project <name>`).
    projects: [
      // Functions and modules in one process: no sockets. The files share each worker's modules
      // (isolate: false): importing the gateway's libraries once per worker instead of once per
      // file is most of the project's CPU. It holds because no unit file leaves state behind:
      // fake timers are restored after each test, stores and registries are built per test.
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      // A real simulator and gateway in the test's process, on port 0. Each file has its own
      // modules: shared ones hang later files' undici FormData uploads to the simulator once any
      // file has imported `node:http` (seen with vitest 5.1). Worker threads rather than a process
      // per file: a thread loads the libraries in node_modules once for all its files, which
      // costs a third less CPU than forks. The files that measure memory read their own thread's
      // (`process.memoryUsage()`'s heapUsed and arrayBuffers are per thread, RSS is not and is not
      // read); none sends signals or changes the environment.
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], pool: 'threads' },
      },
      // Real processes (`node src/main.ts`), signals, Chromium: what a deployment runs.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
      // The files above that use Redis, again on a Redis Cluster (test/support/redis.ts reads
      // WEFT_TEST_REDIS), which the global set-up starts on ports 7000–7005 when none is up.
      {
        extends: true,
        test: {
          name: 'cluster',
          // test/cluster/: what only a cluster has (a slot moving between masters).
          include: [...CLUSTER_FILES, 'test/cluster/**/*.test.ts'],
          env: { WEFT_TEST_REDIS: 'cluster' },
          globalSetup: ['./test/support/redis-cluster-setup.ts'],
        },
      },
    ],
  },
});

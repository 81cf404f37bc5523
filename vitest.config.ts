import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The Redis-mode files that run a second time on a Redis Cluster (the `cluster` project): only what
 * runs another code path on a cluster. The bucket store's scripts (a shared route class's part runs
 * in its own slot: two scripts per call, `SCRIPT FLUSH` on every node), the cache with tag versions,
 * held replays' script on a hash-tagged key, publish/subscribe (a subscriber per cluster), one fetch
 * and one poll loop across replicas (flight leases and watches under the credential's hash tag), the
 * idempotency store (through an outage too) and idempotency and APQ across replicas (the cluster's
 * keyv store), what lands in Redis and no secret (keys scanned on every master), two replica
 * processes (REDIS_CLUSTER_NODES at start-up).
 * Left out: the send window, priorities and unproven tokens through the gateway
 * (test/integration/upstream/): on a cluster they differ only in the bucket store, whose every
 * case (window, shared classes across credentials, unproven calls, the write reserve) runs here in
 * token-bucket.test.ts with `cluster: true`; the files that kill Redis (upstream death, Redis
 * death; the cluster's own failover test is test/e2e/upstream/cluster-failover.test.ts) and the
 * cross-replica fetch's figure (its flight protocol runs on the cluster in
 * cross-replica-flight.test.ts). Their tests without Redis are not registered in the rerun
 * (`describeWithoutRedis`, `rerunOnCluster`).
 */
/** e2e files whose figure is the process's memory under a burst (the project `e2e-alone`). */
const ALONE = ['test/e2e/observability/traced-ledger-memory.test.ts'];

const CLUSTER_FILES = [
  'test/unit/upstream/budget/token-bucket.test.ts',
  'test/unit/upstream/budget/leased-bucket-store.test.ts',
  'test/unit/upstream/cache/upstream-cache.test.ts',
  'test/unit/server/held-replays.test.ts',
  'test/unit/redis/redis-pub-sub.test.ts',
  'test/unit/upstream/cache/cross-replica-flight.test.ts',
  'test/unit/watching/replica-pollers.test.ts',
  'test/integration/server/idempotency.test.ts',
  'test/unit/server/redis-idempotency-store.test.ts',
  'test/integration/server/persisted-operations.test.ts',
  'test/integration/upstream/redis-mode.test.ts',
  'test/integration/server/secret-canaries.test.ts',
  'test/e2e/upstream/two-replicas.test.ts',
];

/**
 * Integration files that keep modules of their own (a thread's modules are fresh for each):
 * - hosting-upload-held-bytes reads its own thread's heap and array buffers
 *   (`process.memoryUsage()` is per thread), and its undici FormData uploads to the simulator hang
 *   once another file of the thread has imported `node:http` (seen with vitest 5.1);
 * - priorities: its Redis pair saw a spent window (`RateLimit-Limit` 10 for 40) after other files in
 *   its thread, not yet understood;
 * - policy runs `npm run cost` as child processes and timed out after other files in its thread
 *   (on a loaded machine; kept apart until shown to be the load).
 */
const INTEGRATION_ISOLATED = [
  'test/integration/hosting/hosting-upload-held-bytes.test.ts',
  'test/integration/upstream/priorities.test.ts',
  'test/integration/server/limits/policy.test.ts',
];

export default defineConfig({
  resolve: {
    // One graphql for everything: Vite would hand our sources graphql's ESM build while packages
    // loaded by Node (Apollo, graphql-tools) get its CommonJS build, and graphql refuses schemas
    // and errors that cross the two ("another module or realm").
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // A short run: `agent` prints only what failed, in full (with the failed tests' output; the
    // passed tests' console output is not printed), and the totals; then one line per project
    // (test/support/project-summary-reporter.ts), then what `WEFT_TEST_WITHOUT` skipped
    // (test/support/requirements.ts). `--reporter=default` lists every file, as before.
    reporters: [
      'agent',
      './test/support/project-summary-reporter.ts',
      './test/support/skipped-requirements-reporter.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for a condition (never a pass by the clock): 1 s by default, which a loaded
    // two-core machine misses while a gateway is still answering.
    expect: { poll: { timeout: 10_000 } },
    // WEFT_TEST_CPU_LOG=<file>: one line per test file with the CPU its worker spent on it.
    setupFiles: process.env.WEFT_TEST_CPU_LOG ? ['./test/support/file-cpu-log.ts'] : [],
    // One file per core. Four at a time (most of a file's time is spent waiting for child
    // processes, Chromium, Redis and simulated latencies) saved ~7 % on one quiet two-core machine,
    // but on a slower one it took as long as two and let the load decide the tests that measure a
    // burst: a traced burst's memory peak, the junk-token pacer, the cross-replica call counts
    // each failed in one of three runs. Two workers took the same time there, and passed.
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
      // A real simulator and gateway in the test's process, on port 0, in worker threads. The
      // files share each thread's modules (isolate: false), as the unit files do: importing the
      // gateway (src/ through vitest's module runner, and its libraries) cost each file about a
      // second of CPU, most of the project's. It holds because every file builds its own simulator,
      // gateways, Redis prefix and clock (`fakeProcessDate` is installed before its stack is built
      // and restored after; no module of src/ keeps a `Date.now` of its own), and none changes the
      // environment or sends signals.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION_ISOLATED],
          pool: 'threads',
          isolate: false,
        },
      },
      // The integration files that keep modules of their own (see INTEGRATION_ISOLATED).
      {
        extends: true,
        test: { name: 'integration-isolated', include: INTEGRATION_ISOLATED, pool: 'threads' },
      },
      // Real processes (`node src/main.ts`), signals, Chromium: what a deployment runs.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
        },
      },
      // The memory peak of a burst, measured with the machine to itself: run after every other
      // project, since a file beside it slows the burst's readers and the answers wait in memory.
      {
        extends: true,
        test: { name: 'e2e-alone', include: ALONE, sequence: { groupOrder: 1 } },
      },
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

/**
 * The ports the tests take beside the shared Redis, as README.md and docs/development.md name them:
 * both pages name every range, so a contributor who frees "the ports" from either frees them all.
 * The ranges are where the tests start their servers: the cluster project's shared cluster
 * (test/support/redis-cluster-setup.ts), the failover test's and the nodes-down-at-start test's
 * throwaway clusters (test/e2e/upstream/), and single Redis servers a test kills
 * (test/support/killable-redis.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './doc-examples.ts';

const TEST_PORT_RANGES = ['7000–7005', '7010–7015', '7020–7029', '7030–7039'];

describe('the test ports in the docs', () => {
  for (const page of ['README.md', 'docs/development.md']) {
    it(`${page} names every range the tests take`, () => {
      const text = readFileSync(join(REPO_ROOT, page), 'utf8').replaceAll(/\s+/g, ' ');
      expect(TEST_PORT_RANGES.filter((range) => !text.includes(range))).toEqual([]);
    });
  }
});

/**
 * The test suite's own policy for what the machine lacks: a missing Redis or Chromium fails the run
 * with the command that provides it, unless `WEFT_TEST_WITHOUT` names it; CI skips nothing; and the
 * skipped tests are counted for the run's summary.
 */
import { describe, expect, it } from 'vitest';
import { chooseBrowser } from '../support/browser-choice.ts';
import { decide, optedOut } from '../support/requirements.ts';
import { skippedFor } from '../support/skipped-requirements-reporter.ts';

describe('what the tests need from the machine', () => {
  it('runs the tests of a requirement that is there', () => {
    expect(decide('redis', true, {})).toBe('run');
    expect(decide('chromium', true, { CI: 'true' })).toBe('run');
  });

  it('fails without Redis, with the command that starts it and the way to opt out', () => {
    expect(() => decide('redis', false, {})).toThrow(
      /Redis is missing.*redis-server --daemonize yes --port 6379 --save "" --appendonly no.*apt-get install redis-server.*WEFT_TEST_WITHOUT=redis npm test/,
    );
  });

  it('fails without a Redis Cluster, saying what starts one and how to point at one', () => {
    expect(() => decide('redis-cluster', false, {})).toThrow(
      /Redis Cluster is missing.*ports 7000–7005.*REDIS_CLUSTER_NODES.*WEFT_TEST_WITHOUT=redis-cluster npm test/,
    );
    expect(decide('redis-cluster', false, { WEFT_TEST_WITHOUT: 'redis-cluster' })).toBe('skip');
  });

  it("fails without Chromium, saying that npm ci brings one and apt-get installs the machine's", () => {
    expect(() => decide('chromium', false, {})).toThrow(
      /Chromium is missing.*npm ci installs one.*apt-get install chromium.*WEFT_TEST_WITHOUT=chromium npm test/,
    );
  });

  it("drives the machine's Chromium when it has one, else the one npm ci brings", () => {
    const both = { system: true, npm: true };
    expect(chooseBrowser({}, both).source).toBe('system');
    expect(chooseBrowser({}, { system: false, npm: true }).source).toBe('npm');
    expect(chooseBrowser({}, { system: true, npm: false }).source).toBe('system');
    const neither = chooseBrowser({}, { system: false, npm: false });
    expect(neither.source).toBeUndefined();
    expect(neither.why).toMatch(
      /no \/usr\/bin\/chromium, and @sparticuz\/chromium is not installed/,
    );
  });

  it('drives the one WEFT_TEST_BROWSER names, and only that one', () => {
    const both = { system: true, npm: true };
    expect(chooseBrowser({ WEFT_TEST_BROWSER: 'npm' }, both).source).toBe('npm');
    expect(chooseBrowser({ WEFT_TEST_BROWSER: 'system' }, both).source).toBe('system');
    const noNpm = chooseBrowser({ WEFT_TEST_BROWSER: 'npm' }, { system: true, npm: false });
    expect(noNpm).toEqual({
      source: undefined,
      why: expect.stringMatching(/^WEFT_TEST_BROWSER=npm: /),
    });
    const noSystem = chooseBrowser({ WEFT_TEST_BROWSER: 'system' }, { system: false, npm: true });
    expect(noSystem).toEqual({
      source: undefined,
      why: 'WEFT_TEST_BROWSER=system: no /usr/bin/chromium',
    });
    expect(() => chooseBrowser({ WEFT_TEST_BROWSER: 'debian' }, both)).toThrow(
      /WEFT_TEST_BROWSER=debian: unknown/,
    );
  });

  it('skips only what WEFT_TEST_WITHOUT names', () => {
    const env = { WEFT_TEST_WITHOUT: 'redis' };
    expect(decide('redis', false, env)).toBe('skip');
    expect(() => decide('chromium', false, env)).toThrow(/Chromium is missing/);
    expect(optedOut({ WEFT_TEST_WITHOUT: ' Redis , chromium' })).toEqual(
      new Set(['redis', 'chromium']),
    );
  });

  it('refuses a name it does not know, rather than skipping nothing quietly', () => {
    expect(() => optedOut({ WEFT_TEST_WITHOUT: 'redsi' })).toThrow(/unknown "redsi"/);
  });

  it('skips nothing in CI, even when asked to', () => {
    expect(() => decide('redis', false, { CI: 'true' })).toThrow(/Redis is missing/);
    expect(() => decide('redis', true, { CI: 'true', WEFT_TEST_WITHOUT: 'redis' })).toThrow(
      /CI runs every test/,
    );
  });

  it("counts the skipped tests of the files that import the requirement's support module", () => {
    const modules = [
      { source: `import { testRedisAvailable } from '../../support/redis.ts';`, skipped: 7 },
      { source: `import { chromiumMissing } from '../../support/chromium.ts';`, skipped: 3 },
      { source: `import { drainKeys } from '../../support/redis.ts';`, skipped: 0 },
      { source: `import { startStack } from '../../support/gateway-harness.ts';`, skipped: 2 },
    ];
    expect(skippedFor('redis', modules)).toEqual({ tests: 7, files: 1 });
    expect(skippedFor('chromium', modules)).toEqual({ tests: 3, files: 1 });
  });
});

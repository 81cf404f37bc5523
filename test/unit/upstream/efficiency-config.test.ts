/** The configuration of the efficiency layers (src/config.ts). */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, retiredVariablesIn } from '../../../src/config.ts';

describe('efficiency configuration', () => {
  it('has safe defaults', () => {
    expect(loadConfig({})).toMatchObject({
      UPSTREAM_BUCKET_WAIT_MS: 5_000,
      UPSTREAM_WRITE_RESERVE_SHARE: 0.1,
      UPSTREAM_LIMITER: 'on',
      UPSTREAM_CACHE: 'on',
      CACHE_MAX_BYTES: 32 * 1024 * 1024,
      CACHE_STALE_MAX_AGE_SEC: 600,
      REDIS_KEY_PREFIX: 'weft',
    });
  });

  it('refuses to run production without the limiter', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', UPSTREAM_LIMITER: 'off' })).toThrow(
      /UPSTREAM_LIMITER/,
    );
    expect(loadConfig({ NODE_ENV: 'test', UPSTREAM_LIMITER: 'off' }).UPSTREAM_LIMITER).toBe('off');
  });

  it('names bad values', () => {
    for (const env of [
      { UPSTREAM_WRITE_RESERVE_SHARE: '1.5' },
      { CACHE_TTL_OVERRIDES: 'app=five' },
      { REDIS_KEY_PREFIX: 'has space' },
      { UPSTREAM_CACHE: 'maybe' },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
    }
    expect([...loadConfig({ CACHE_TTL_OVERRIDES: 'app=5,store=0' }).CACHE_TTL_OVERRIDES]).toEqual([
      ['app', 5],
      ['store', 0],
    ]);
  });

  it('names a retired variable still set, and what replaced it', () => {
    expect(retiredVariablesIn({ REDIS_DOWN_BUDGET_SHARE: '0.25' })).toEqual([
      expect.stringMatching(/^REDIS_DOWN_BUDGET_SHARE is no longer read: .*leases/),
    ]);
    expect(retiredVariablesIn({})).toEqual([]);
  });
});

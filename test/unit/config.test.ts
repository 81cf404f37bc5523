import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 4000,
      UPSTREAM_RATE_LIMIT: 600,
      UPSTREAM_RATE_WINDOW_SEC: 1399,
      INTROSPECTION: true,
    });
    expect(config.UPSTREAM_URL).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('fails fast naming every bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', UPSTREAM_URL: 'ftp://x' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', UPSTREAM_URL: 'ftp://x', REDIS_URL: 'http://nope' });
    } catch (error) {
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/UPSTREAM_URL/);
      expect((error as Error).message).toMatch(/REDIS_URL/);
    }
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' }).PORT).toBe(4000);
  });
});

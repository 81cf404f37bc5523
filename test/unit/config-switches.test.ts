/** One switch syntax: every on/off variable reads `on`/`off`, `true`/`false` and `1`/`0` alike. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('switches', () => {
  it('read a boolean variable the same in every spelling', () => {
    for (const [on, off] of [
      ['on', 'off'],
      ['true', 'false'],
      ['1', '0'],
    ]) {
      expect(loadConfig({ INTROSPECTION: on }).INTROSPECTION).toBe(true);
      expect(loadConfig({ INTROSPECTION: off }).INTROSPECTION).toBe(false);
    }
    expect(loadConfig({ EXPLORER: 'off', METRICS: 'false' })).toEqual(
      loadConfig({ EXPLORER: 'false', METRICS: 'off' }),
    );
  });

  it('read an on/off variable the same in every spelling', () => {
    for (const [on, off] of [
      ['on', 'off'],
      ['true', 'false'],
      ['1', '0'],
    ]) {
      expect(loadConfig({ UPSTREAM_CACHE: on }).UPSTREAM_CACHE).toBe('on');
      expect(loadConfig({ UPSTREAM_CACHE: off }).UPSTREAM_CACHE).toBe('off');
    }
    expect(loadConfig({ UPSTREAM_CROSS_REPLICA_COALESCING: 'false' })).toEqual(
      loadConfig({ UPSTREAM_CROSS_REPLICA_COALESCING: 'off' }),
    );
  });

  it('keep their defaults when unset', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ INTROSPECTION: true, TRACING_TRUST_TRACEPARENT: false });
    expect(config).toMatchObject({ UPSTREAM_LIMITER: 'on', MCP: 'off' });
  });

  it('refuse another value, naming the variable', () => {
    for (const env of [{ RESPONSE_CACHE: 'yes' }, { UPSTREAM_LIMITER: 'On' }]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(
        new RegExp(`${Object.keys(env)[0]}: must be on or off`),
      );
    }
  });

  it('refuse production without the budget in either spelling', () => {
    for (const off of ['off', 'false', '0']) {
      expect(() => loadConfig({ NODE_ENV: 'production', UPSTREAM_LIMITER: off })).toThrow(
        /UPSTREAM_LIMITER: off is refused in production/,
      );
    }
  });
});

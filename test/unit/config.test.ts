import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

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

describe('dangerous configurations are refused at start-up, naming the variable', () => {
  const refusal = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };

  it('refuses production without an upstream URL unless the simulator is chosen on purpose', () => {
    expect(refusal({ NODE_ENV: 'production' })).toMatch(
      /UPSTREAM_URL: required in production.*UPSTREAM=embedded/,
    );
    expect(loadConfig({ NODE_ENV: 'production', UPSTREAM: 'embedded' }).UPSTREAM).toBe('embedded');
    expect(
      loadConfig({ NODE_ENV: 'production', UPSTREAM_URL: 'https://api.example' }).UPSTREAM,
    ).toBe('url');
    // Outside production the simulator is the default (`npm start` on a fresh clone).
    expect(loadConfig({}).UPSTREAM).toBe('embedded');
    expect(refusal({ UPSTREAM: 'url' })).toMatch(/UPSTREAM_URL: required when UPSTREAM=url/);
    expect(refusal({ UPSTREAM: 'embedded', UPSTREAM_URL: 'https://api.example' })).toMatch(
      /UPSTREAM_URL: must be unset when UPSTREAM=embedded/,
    );
  });

  it('refuses Redis without a shared credential HMAC secret', () => {
    expect(refusal({ REDIS_URL: 'redis://127.0.0.1:6379' })).toMatch(
      /CREDENTIAL_HMAC_SECRET: required with REDIS_URL/,
    );
    expect(
      loadConfig({
        REDIS_URL: 'redis://127.0.0.1:6379',
        CREDENTIAL_HMAC_SECRET: 'x'.repeat(16),
        UPSTREAM_URL: 'http://127.0.0.1:4010',
      }).REDIS_URL,
    ).toBe('redis://127.0.0.1:6379');
  });

  it('refuses replicas on one Redis that would each embed their own simulator', () => {
    const secret = { CREDENTIAL_HMAC_SECRET: 'x'.repeat(16) };
    // Left to guess, each replica would serve its own simulator's data (one's job, another's NOT_FOUND).
    expect(refusal({ REDIS_URL: 'redis://127.0.0.1:6379', ...secret })).toMatch(
      /UPSTREAM_URL: required with REDIS_URL \(replicas sharing Redis must share one upstream/,
    );
    expect(refusal({ REDIS_CLUSTER_NODES: 'redis-a:7000', ...secret })).toMatch(
      /UPSTREAM_URL: required with REDIS_CLUSTER_NODES/,
    );
    // One shared upstream, or the simulator chosen on purpose for a single process: accepted.
    expect(
      loadConfig({
        REDIS_URL: 'redis://127.0.0.1:6379',
        UPSTREAM_URL: 'http://127.0.0.1:4010',
        ...secret,
      }).UPSTREAM,
    ).toBe('url');
    expect(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', UPSTREAM: 'embedded', ...secret }).UPSTREAM,
    ).toBe('embedded');
  });

  it('reads a Redis Cluster as its root nodes, with the secret, never beside REDIS_URL', () => {
    const secret = { CREDENTIAL_HMAC_SECRET: 'x'.repeat(16) };
    expect(
      loadConfig({
        REDIS_CLUSTER_NODES: ' redis-a:7000, 10.0.0.2:7001 ,',
        UPSTREAM_URL: 'http://127.0.0.1:4010',
        ...secret,
      }).REDIS_CLUSTER_NODES,
    ).toEqual(['redis-a:7000', '10.0.0.2:7001']);
    expect(refusal({ REDIS_CLUSTER_NODES: 'redis-a:7000' })).toMatch(
      /CREDENTIAL_HMAC_SECRET: required with REDIS_CLUSTER_NODES/,
    );
    expect(
      refusal({
        REDIS_URL: 'redis://127.0.0.1:6379',
        REDIS_CLUSTER_NODES: 'redis-a:7000',
        ...secret,
      }),
    ).toMatch(/REDIS_URL and REDIS_CLUSTER_NODES: both are set/);
    expect(refusal({ REDIS_CLUSTER_NODES: 'redis://redis-a:7000', ...secret })).toMatch(
      /REDIS_CLUSTER_NODES: must be host:port/,
    );
  });

  it('turns MCP on only with operations to serve, at the background priority by default', () => {
    expect(loadConfig({}).MCP).toBe('off');
    expect(refusal({ MCP: 'on' })).toMatch(/MCP_OPERATIONS_DIR: required with MCP=on/);
    const on = loadConfig({ MCP: 'on', MCP_OPERATIONS_DIR: 'examples/mcp' });
    expect(on.MCP_PRIORITY).toBe('background');
    expect(loadConfig({ MCP: 'on', TRUSTED_DOCUMENTS_PATH: 'manifest.json' }).MCP).toBe('on');
    expect(refusal({ MCP: 'yes' })).toMatch(/MCP: /);
    expect(refusal({ MCP_PRIORITY: 'write' })).toMatch(/MCP_PRIORITY: /);
  });

  it('reads TTL overrides by their form only, refusing a malformed one', () => {
    // Which kinds exist is the route declarations' to say (test/unit/graph/upstream-routes.test.ts).
    expect([...loadConfig({ CACHE_TTL_OVERRIDES: 'app=5,aap=3' }).CACHE_TTL_OVERRIDES]).toEqual([
      ['app', 5],
      ['aap', 3],
    ]);
    expect(refusal({ CACHE_TTL_OVERRIDES: 'app:5' })).toMatch(
      /CACHE_TTL_OVERRIDES: must look like kind=seconds,kind=seconds/,
    );
  });

  it('refuses every min/max pair out of order, naming both variables', () => {
    const pairs: [string, string, string, string][] = [
      ['SUBSCRIPTION_POLL_MIN_MS', '6000', 'SUBSCRIPTION_POLL_MAX_MS', '5000'],
      ['SUBSCRIPTION_POLL_MAX_MS', '300000', 'SUBSCRIPTION_MAX_LIFETIME_MS', '60000'],
      ['UPSTREAM_CONNECT_TIMEOUT_MS', '20000', 'UPSTREAM_DEADLINE_MS', '10000'],
      ['UPSTREAM_HEADERS_TIMEOUT_MS', '20000', 'UPSTREAM_DEADLINE_MS', '10000'],
      ['UPSTREAM_BODY_TIMEOUT_MS', '20000', 'UPSTREAM_DEADLINE_MS', '10000'],
      ['REDIS_COMMAND_TIMEOUT_MS', '5000', 'REDIS_CONNECT_TIMEOUT_MS', '4000'],
    ];
    for (const [smaller, small, larger, large] of pairs) {
      expect(refusal({ [smaller]: small, [larger]: large })).toContain(
        `${smaller} (${small}) must not exceed ${larger} (${large})`,
      );
      expect(() => loadConfig({ [smaller]: large, [larger]: large })).not.toThrow();
    }
  });

  it('says which pattern a prefix must match', () => {
    expect(refusal({ REDIS_KEY_PREFIX: 'has space' })).toContain(
      'REDIS_KEY_PREFIX: must match ^[A-Za-z0-9_.-]{1,32}$',
    );
  });
});

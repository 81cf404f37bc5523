/** CORS origins: the defaults per environment and the patterns of CORS_ORIGINS. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { corsOriginsOf, originMatcher } from '../../../src/server/cors.ts';

describe('CORS origins', () => {
  it('allows none in production and the loopback origins in development, unless configured', () => {
    expect(corsOriginsOf({ NODE_ENV: 'production', CORS_ORIGINS: undefined })).toEqual([]);
    expect(corsOriginsOf({ NODE_ENV: 'development', CORS_ORIGINS: undefined })).toContain(
      'http://localhost:*',
    );
    expect(corsOriginsOf({ NODE_ENV: 'development', CORS_ORIGINS: 'none' })).toEqual([]);
    const config = loadConfig({ CORS_ORIGINS: 'https://app.example.com,https://*.example.org' });
    expect(corsOriginsOf(config)).toEqual(['https://app.example.com', 'https://*.example.org']);
  });

  it('refuses a malformed CORS_ORIGINS at start-up, naming it', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.com' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example.com;https://b' })).toThrow(
      /CORS_ORIGINS/,
    );
  });

  it('matches exact origins exactly, and * as one host label or the port', () => {
    const exact = originMatcher('https://app.example.com');
    expect(exact('https://app.example.com')).toBe(true);
    expect(exact('https://app.example.com.evil.test')).toBe(false);
    expect(exact('http://app.example.com')).toBe(false);
    const label = originMatcher('https://*.example.com');
    expect(label('https://shop.example.com')).toBe(true);
    expect(label('https://a.b.example.com')).toBe(false);
    expect(label('https://example.com')).toBe(false);
    expect(label('https://evil-example.com')).toBe(false);
    const port = originMatcher('http://localhost:*');
    expect(port('http://localhost:5173')).toBe(true);
    expect(port('http://localhost')).toBe(false);
    expect(port('http://localhost.evil.test:80')).toBe(false);
    expect(originMatcher('http://[::1]:*')('http://[::1]:3000')).toBe(true);
  });
});

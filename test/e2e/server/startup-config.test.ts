/**
 * A refused configuration stops the image's command before it listens: exit 1 and one line on
 * stderr that names the variable (what an operator sees in `docker logs`). Each case sets only the
 * variables it is about, so the refusal it expects is the only one.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, productionCommand } from '../../support/production-command.ts';

async function startWith(env: Record<string, string>) {
  const child = spawn(process.execPath, productionCommand().args, {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

describe('start-up refuses a dangerous configuration', () => {
  it.each([
    [{ PORT: 'not-a-port' }, 'PORT'],
    [{ NODE_ENV: 'production' }, 'UPSTREAM_URL'],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, 'CREDENTIAL_HMAC_SECRET'],
    [
      {
        REDIS_URL: 'redis://127.0.0.1:6379',
        REDIS_CLUSTER_NODES: '127.0.0.1:7000',
        CREDENTIAL_HMAC_SECRET: 'x'.repeat(16),
      },
      'REDIS_CLUSTER_NODES',
    ],
    // Replicas on one Redis, each left to embed its own simulator (its own data).
    [
      { REDIS_URL: 'redis://127.0.0.1:6379', CREDENTIAL_HMAC_SECRET: 'x'.repeat(16) },
      'UPSTREAM_URL: required with REDIS_URL',
    ],
    [
      { REDIS_CLUSTER_NODES: '127.0.0.1:7000', CREDENTIAL_HMAC_SECRET: 'x'.repeat(16) },
      'UPSTREAM_URL: required with REDIS_CLUSTER_NODES',
    ],
    [{ CACHE_TTL_OVERRIDES: 'certificate=60' }, 'CACHE_TTL_OVERRIDES'],
    [{ SUBSCRIPTION_POLL_MIN_MS: '9000' }, 'SUBSCRIPTION_POLL_MIN_MS'],
  ])('%o: exits 1 before listening, naming %s', async (env, variable) => {
    const { code, stdout, stderr } = await startWith(env);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});

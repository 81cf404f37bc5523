/**
 * A refused configuration stops the image's command before it listens: exit 1 and one line on
 * stderr that names the variable (what an operator sees in `docker logs`). Each case sets only the
 * variables it is about, so the refusal it expects is the only one. A port already taken is refused
 * the same way: one line naming PORT, not a stack.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ownChild } from '../../support/owned-processes.ts';
import { PROJECT_ROOT, productionCommand } from '../../support/production-command.ts';

async function startWith(env: Record<string, string>) {
  const child = ownChild(
    spawn(process.execPath, productionCommand().args, {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
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

describe('start-up on a port already taken', () => {
  it('exits 1 with one line on stderr naming PORT and the port, no stack', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    try {
      const { code, stderr } = await startWith({ PORT: String(port) });
      expect(code).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines).toEqual([expect.stringContaining(`PORT ${port} is already in use`)]);
      expect(lines[0]).toContain('EADDRINUSE');
    } finally {
      holder.close();
    }
  });
});

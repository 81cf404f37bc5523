import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';

/** Starts `src/main.ts` as a real process (embedded simulator, 800 ms upstream latency). */
async function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'Weft is serving the graph' && entry.url) resolve(entry.url);
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
  });
  return { child, url };
}

describe('graceful shutdown', () => {
  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    const { child, url } = await startMain({ SIM_LATENCY_MS: '800' });
    const inFlight = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({
        query: '{ certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }',
      }),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    const response = await inFlight;
    const body = (await response.body.json()) as { data: { certificatesByEntitlement: unknown[] } };
    expect(response.statusCode).toBe(200);
    expect(body.data.certificatesByEntitlement).toHaveLength(1);
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
  });

  it('fails fast with a message naming a bad variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'not-a-port' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr).toContain('PORT');
  });
});

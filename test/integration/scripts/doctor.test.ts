/**
 * `npm run doctor` (scripts/doctor.ts) run as an operator runs it, against a real simulator: with a
 * full token and a read-only token every read works (exit 0, 10 calls); with a token made for the
 * certificates alone it names each missing scope (exit 1, 4 calls: the probes that need a store or
 * an app have none to use); a refused token, a URL that does not answer and a missing token each
 * end with their own message. The calls it spends are counted by the simulator, not by the script.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const run = promisify(execFile);
const DOCTOR = join(import.meta.dirname, '..', '..', '..', 'scripts', 'doctor.ts');

interface Outcome {
  readonly code: number;
  readonly out: string;
}

async function doctor(env: Record<string, string>, args: string[] = []): Promise<Outcome> {
  const clean = { ...process.env };
  delete clean['UPSTREAM_URL'];
  delete clean['WEFT_TOKEN'];
  try {
    const { stdout, stderr } = await run(process.execPath, [DOCTOR, ...args], {
      env: { ...clean, ...env },
      timeout: 60_000,
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const READ_SCOPES = [
  'ssl.certificates:read',
  'hosting.paas.apps:read',
  'hosting.paas.logs:read',
  'commerce.channel:read',
  'commerce.store:read',
  'commerce.customer:read',
  'commerce.transaction:read',
  'commerce.product:read',
  'commerce.tax:read',
  'commerce.order:read',
];

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  await sim.reset();
});

describe('npm run doctor', () => {
  it.each(['demo-token', 'demo-readonly'])(
    'finds every read working with %s, in 10 calls, and never prints the token',
    async (token) => {
      const { code, out } = await doctor({ UPSTREAM_URL: sim.url, WEFT_TOKEN: token });
      expect(code).toBe(0);
      for (const scope of READ_SCOPES) expect(out).toMatch(new RegExp(`ok +${scope} `));
      for (const part of ['certificates', 'hosting', 'commerce', 'stitched subgraphs']) {
        expect(out).toContain(`  ${part}: reads work`);
      }
      expect(out).toContain('Budget: 590 of 600 calls left in this window');
      expect(out).toContain('Calls spent: 10 (reads).');
      expect(out).not.toContain(token);
      const stats = await sim.stats();
      expect(stats.total).toBe(10);
      expect(Object.keys(stats.byStatus)).toEqual(['200']);
      // Reads only.
      expect(
        Object.keys(stats.byRoute).every((route) => /^(GET |POST .*-subgraph$)/.test(route)),
      ).toBe(true);
    },
  );

  it('names each missing scope and the fields it stops (exit 1)', async () => {
    const { code, out } = await doctor({ UPSTREAM_URL: sim.url, WEFT_TOKEN: 'demo-certificates' });
    expect(code).toBe(1);
    expect(out).toMatch(/ok +ssl\.certificates:read /);
    expect(out).toMatch(/MISSING +hosting\.paas\.apps:read /);
    expect(out).toMatch(/MISSING +commerce\.channel:read /);
    expect(out).toMatch(/MISSING +commerce\.order:read /);
    expect(out).toContain('  certificates: reads work');
    expect(out).toContain('missing hosting.paas.apps:read, needed by Query.node, Query.apps');
    expect(out).toContain('commerce.store:read not checked: no store to read (give --store)');
    expect(out).toContain('Calls spent: 4 (reads).');
    expect((await sim.stats()).total).toBe(4);
  });

  it('checks the store scopes on the store it is given', async () => {
    const store = '11111111-1111-4111-8111-111111111111';
    const { code, out } = await doctor({ UPSTREAM_URL: sim.url, WEFT_TOKEN: 'demo-certificates' }, [
      '--store',
      store,
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(/MISSING +commerce\.store:read /);
    expect(out).toMatch(/MISSING +commerce\.product:read /);
    expect(out).toContain('Calls spent: 9 (reads).');
    expect((await sim.stats()).total).toBe(9);
  });

  it('stops after one call when the token is refused', async () => {
    const { code, out } = await doctor({ UPSTREAM_URL: sim.url, WEFT_TOKEN: 'not-a-token' });
    expect(code).toBe(1);
    expect(out).toContain('The provider refused the token (401 UNAUTHORIZED)');
    expect(out).toContain('Calls spent: 1 (reads).');
    expect((await sim.stats()).total).toBe(1);
  });

  it('says so when UPSTREAM_URL has a path of its own', async () => {
    const { code, out } = await doctor({ UPSTREAM_URL: `${sim.url}/v1`, WEFT_TOKEN: 'demo-token' });
    expect(code).toBe(1);
    expect(out).toContain("the URL answers but does not serve the provider's paths");
  });

  it('says so when the URL does not answer', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const { code, out } = await doctor({
      UPSTREAM_URL: `http://127.0.0.1:${port}`,
      WEFT_TOKEN: 'demo-token',
    });
    expect(code).toBe(1);
    expect(out).toContain(`http://127.0.0.1:${port} does not answer (ECONNREFUSED)`);
    expect(out).toContain('Parts of the graph: not known until this is fixed.');
  });

  it('is a usage error (exit 2, no call) without a token or with an unknown argument', async () => {
    const noToken = await doctor({ UPSTREAM_URL: sim.url });
    expect(noToken.code).toBe(2);
    expect(noToken.out).toContain('no token: set WEFT_TOKEN (or --token)');
    const unknown = await doctor({ UPSTREAM_URL: sim.url, WEFT_TOKEN: 'demo-token' }, ['--stor']);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toContain('unknown argument "--stor"');
    const noUrl = await doctor({ WEFT_TOKEN: 'demo-token' });
    expect(noUrl.code).toBe(2);
    expect((await sim.stats()).total).toBe(0);
  });
});

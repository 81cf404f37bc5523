/**
 * The hosting account of `demo-token` at the simulator, set straight there (no gateway, no budget of
 * the gateway's): for tests whose subject depends on how many apps the account holds.
 */
import { expect } from 'vitest';
import type { Stack } from './gateway-harness.ts';

const H = '/v1/hosting/nodejs';
const token = 'demo-token';

/** Creates or deletes apps until the account holds exactly `count`. */
export async function setAppCount(stack: Stack, count: number): Promise<void> {
  const apps = (await stack.sim.call('GET', `${H}/apps`, { token })).body.apps as {
    id: string;
  }[];
  for (const app of apps.slice(count)) {
    const deleted = await stack.sim.call('DELETE', `${H}/apps/${app.id}`, { token });
    expect(deleted.status).toBeLessThan(300);
  }
  for (let index = apps.length; index < count; index += 1) {
    const created = await stack.sim.call('POST', `${H}/apps`, {
      token,
      body: { name: `account-${index}` },
    });
    expect(created.status).toBe(202);
    // The second status read activates the job (simulator: one step per read after the first).
    let status = 'pending';
    for (let read = 0; read < 5 && status === 'pending'; read += 1) {
      status = (await stack.sim.call('GET', `${H}/apps/jobs/${created.body.job.id}`, { token }))
        .body.job.status;
    }
    expect(status).toBe('active');
  }
}

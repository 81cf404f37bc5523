/**
 * A heap snapshot taken of a running replica, as Node's documentation shows it
 * (`--heapsnapshot-signal=SIGUSR2`, here through NODE_OPTIONS as a container would set it): the
 * snapshot is written and the process goes on serving. close-with-grace shuts down on SIGUSR2
 * unless told to leave it alone (src/server/shutdown/diagnostic-signals.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess } from '../../support/gateway-process.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: $id) { certificateId } } }`;

let sim: RunningSimulator;
let snapshots: string;
beforeAll(async () => {
  sim = await startSimulator();
  snapshots = mkdtempSync(join(tmpdir(), 'weft-snapshots-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(snapshots, { recursive: true, force: true });
});

describe('a diagnostic signal', () => {
  it('writes the heap snapshot it asks for and leaves the process serving', async () => {
    const gateway = await startGatewayProcess({
      UPSTREAM_URL: sim.url,
      NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`,
    });
    try {
      gateway.child.kill('SIGUSR2');
      // A condition with a deadline, not a bound: writing the snapshot takes about a second here,
      // several on a loaded two-core machine (the graceful-shutdown tests' deadline).
      await expect
        .poll(() => readdirSync(snapshots).filter((name) => name.endsWith('.heapsnapshot')), {
          interval: 50,
          timeout: 30_000,
        })
        .toHaveLength(1);
      const answer = await gateway.gql(DETAIL, { id: 'cert-0001' });
      expect(answer.status).toBe(200);
      expect(answer.body.data.certificateCustomer.certificate.certificateId).toBe('cert-0001');
      expect(gateway.logs.join('\n')).not.toContain('shutting down');
      expect(gateway.child.exitCode).toBeNull();
    } finally {
      await gateway.stop();
    }
    expect(gateway.child.exitCode).toBe(0);
  });
});

/**
 * The Kubernetes example (deploy/kubernetes/weft.yaml, docs/replicas.md) is held to what it deploys:
 * the Dockerfile's command, a configuration the gateway accepts in production, probes on the routes
 * and port the gateway serves, a grace period that covers the whole shutdown, and selectors that
 * find the Deployment's pods.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url);
const manifests = parseAllDocuments(
  readFileSync(new URL('deploy/kubernetes/weft.yaml', ROOT), 'utf8'),
).map((document) => document.toJS() as any);
const byKind = (kind: string) => {
  const found = manifests.filter((manifest) => manifest.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};
const deployment = byKind('Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const configMap = byKind('ConfigMap');

/** The environment the container gets: the ConfigMap, then its own env (secrets as placeholders). */
function containerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    expect(source.configMapRef.name).toBe(configMap.metadata.name);
    Object.assign(env, configMap.data);
  }
  for (const variable of container.env ?? []) {
    env[variable.name] =
      variable.value ?? (variable.valueFrom?.secretKeyRef ? placeholder(variable.name) : '');
  }
  return env;
}
const placeholder = (name: string) =>
  name === 'REDIS_URL' ? 'redis://:secret@redis:6379' : 'a-secret-of-at-least-sixteen-chars';

describe('the Kubernetes example', () => {
  it("runs the Dockerfile's command", () => {
    const dockerfile = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
    // The last stage's CMD: the product image (an earlier stage, `simulator`, has its own).
    const cmd = [...dockerfile.matchAll(/^CMD (\[.*\])$/gm)].at(-1)?.[1];
    expect(cmd).toBeDefined();
    expect(container.command).toEqual(JSON.parse(cmd!));
  });

  it('names only variables the gateway reads, and the gateway accepts them in production', () => {
    const env = containerEnv();
    expect(env.NODE_ENV).toBe('production');
    expect(Object.keys(env).filter((name) => !(name in CONFIG_VARIABLES))).toEqual([]);
    const config = loadConfig(env);
    expect(config.REDIS_URL).toBeDefined();
  });

  it('probes the routes the gateway serves, on the port it listens on', () => {
    const port = container.ports.find((p: any) => p.name === 'http');
    expect(port.containerPort).toBe(loadConfig(containerEnv()).PORT);
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
  });

  it('gives the shutdown its whole course before Kubernetes kills the process', () => {
    const config = loadConfig(containerEnv());
    const pause = container.lifecycle.preStop.sleep.seconds;
    // docs/deploy.md "Shutdown": the drain bound, 2 s for upstream calls, 1 s to flush the log.
    const shutdownSec = config.SHUTDOWN_TIMEOUT_MS / 1000 + 2 + 1;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pause + shutdownSec);
  });

  it("finds the Deployment's pods from the Service and the disruption budget", () => {
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(byKind('Service').spec.selector).toEqual(labels);
    const budget = byKind('PodDisruptionBudget');
    expect(budget.spec.selector.matchLabels).toEqual(labels);
    expect(budget.spec.maxUnavailable).toBeLessThan(deployment.spec.replicas);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../../../src/upstream/http/circuit-breaker.ts';

function breaker() {
  let now = 0;
  const changes: string[] = [];
  const circuit = createCircuitBreaker({
    failureThreshold: 3,
    openMs: 1_000,
    now: () => now,
    onStateChange: (name, state) => changes.push(`${name}:${state}`),
  });
  return { circuit, changes, advance: (ms: number) => (now += ms) };
}

describe('circuit breaker', () => {
  it('opens after consecutive failures, probes once when half-open, and closes on success', () => {
    const { circuit, changes, advance } = breaker();
    for (let i = 0; i < 3; i += 1) {
      expect(circuit.admit('hosting')).toEqual({ allowed: true, probe: false });
      circuit.record('hosting', 'failure', false);
    }
    expect(circuit.state('hosting')).toBe('open');
    expect(circuit.admit('hosting')).toEqual({ allowed: false, retryAfterSec: 1 });
    // Other classes are independent.
    expect(circuit.admit('certificates')).toEqual({ allowed: true, probe: false });

    advance(1_000);
    expect(circuit.admit('hosting')).toEqual({ allowed: true, probe: true });
    expect(circuit.state('hosting')).toBe('half-open');
    // Only one probe at a time.
    expect(circuit.admit('hosting').allowed).toBe(false);
    circuit.record('hosting', 'success', true);
    expect(circuit.state('hosting')).toBe('closed');
    expect(changes).toEqual(['hosting:open', 'hosting:half-open', 'hosting:closed']);
  });

  it('reopens when the probe fails, and a success resets the failure count', () => {
    const { circuit, advance } = breaker();
    circuit.record('tax', 'failure', false);
    circuit.record('tax', 'failure', false);
    circuit.record('tax', 'success', false);
    circuit.record('tax', 'failure', false);
    expect(circuit.state('tax')).toBe('closed');
    circuit.record('tax', 'failure', false);
    circuit.record('tax', 'failure', false);
    expect(circuit.state('tax')).toBe('open');
    advance(1_500);
    const probe = circuit.admit('tax');
    expect(probe).toEqual({ allowed: true, probe: true });
    circuit.record('tax', 'failure', true);
    expect(circuit.state('tax')).toBe('open');
    expect(circuit.admit('tax')).toEqual({ allowed: false, retryAfterSec: 1 });
  });

  it('frees the probe slot when the probe never reached the upstream', () => {
    const { circuit, advance } = breaker();
    for (let i = 0; i < 3; i += 1) circuit.record('order', 'failure', false);
    advance(1_000);
    expect(circuit.admit('order').allowed).toBe(true);
    circuit.record('order', 'skipped', true);
    expect(circuit.state('order')).toBe('half-open');
    expect(circuit.admit('order')).toEqual({ allowed: true, probe: true });
  });
});

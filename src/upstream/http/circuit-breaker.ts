/**
 * Circuit breaking per upstream part (docs/deploy.md "The upstream failing"; each route declares
 * its part, `upstream-routes.ts`): after `failureThreshold` consecutive failures (5xx, network
 * errors, timeouts) a part's circuit opens and its calls fail at once with
 * UPSTREAM_UNAVAILABLE for `openMs`; then exactly one call is let through as a half-open probe —
 * success closes the circuit, failure opens it again. Fields backed by the cache still resolve
 * (served stale) while a circuit is open.
 */
import type { CircuitState } from '../../observability/metrics.ts';

export type { CircuitState };

export interface CircuitBreakerOptions {
  readonly failureThreshold: number;
  readonly openMs: number;
  readonly now?: () => number;
  /** Called on every state change (metrics, logs). */
  readonly onStateChange?: (breakerClass: string, state: CircuitState) => void;
}

interface Circuit {
  state: CircuitState;
  failures: number;
  openedAt: number;
  probeInFlight: boolean;
}

export type Admission =
  | { readonly allowed: true; readonly probe: boolean }
  | { readonly allowed: false; readonly retryAfterSec: number };

export interface CircuitBreaker {
  /** Whether a call of this class may go out now (and whether it is the half-open probe). */
  admit(breakerClass: string): Admission;
  /** The outcome of an admitted call; `skipped` = it never reached the upstream (e.g. no budget). */
  record(breakerClass: string, outcome: 'success' | 'failure' | 'skipped', probe: boolean): void;
  state(breakerClass: string): CircuitState;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const now = options.now ?? Date.now;
  const circuits = new Map<string, Circuit>();
  const circuitOf = (name: string): Circuit => {
    let circuit = circuits.get(name);
    if (!circuit) {
      circuit = { state: 'closed', failures: 0, openedAt: 0, probeInFlight: false };
      circuits.set(name, circuit);
    }
    return circuit;
  };
  const transition = (name: string, circuit: Circuit, state: CircuitState) => {
    if (circuit.state === state) return;
    circuit.state = state;
    options.onStateChange?.(name, state);
  };

  return {
    admit(name) {
      const circuit = circuitOf(name);
      if (circuit.state === 'closed') return { allowed: true, probe: false };
      const waited = now() - circuit.openedAt;
      if (circuit.state === 'open' && waited >= options.openMs)
        transition(name, circuit, 'half-open');
      if (circuit.state === 'half-open' && !circuit.probeInFlight) {
        circuit.probeInFlight = true;
        return { allowed: true, probe: true };
      }
      const left = Math.max(0, options.openMs - waited);
      return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(left / 1000)) };
    },
    record(name, outcome, probe) {
      const circuit = circuitOf(name);
      if (probe) circuit.probeInFlight = false;
      if (outcome === 'skipped') return;
      if (outcome === 'success') {
        circuit.failures = 0;
        transition(name, circuit, 'closed');
        return;
      }
      circuit.failures += 1;
      if (probe || circuit.failures >= options.failureThreshold) {
        circuit.openedAt = now();
        transition(name, circuit, 'open');
      }
    },
    state: (name) => circuitOf(name).state,
  };
}

/**
 * Prometheus metrics (`GET /metrics`). One registry per gateway (tests run several in one process).
 * Labels never carry a token, an id or a raw path: operations by (sanitised, bounded) name, upstream
 * calls by route template, buckets by class.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface GatewayMetrics {
  readonly registry: Registry;
  operation(name: string | null | undefined, outcome: 'success' | 'error', seconds: number): void;
  upstreamCall(method: string, route: string, status: number | 'error', seconds: number): void;
  cacheLookup(result: 'hit' | 'miss' | 'stale'): void;
  /**
   * A miss's part in a fetch across replicas: `led` (fetched for the others), `joined` (answered by
   * another replica's fetch) or `alone` (fetched for itself: Redis unusable, or nothing to share).
   */
  crossReplicaFlight(role: 'led' | 'joined' | 'alone'): void;
  /** A call waited for room (`bucket`: what it waited for; `priority`: `call-priority.ts`). */
  bucketWait(bucket: string, priority: string): void;
  bucketRefusal(bucket: string, priority: string): void;
  /** The upstream answered 429 to a call of this priority. */
  upstreamRateLimited(priority: string): void;
  /** A read waiting for room was dropped: its clients had left (upstream/call-interest.ts). */
  upstreamCallDropped(route: string): void;
  /**
   * One operation's upstream calls: requests that reached the upstream, and calls served without it
   * (cache, a call of another request, a stale value, a local refusal).
   */
  operationUpstream(
    name: string | null | undefined,
    upstream: number,
    withoutUpstream: number,
    /** The operation's upper bound of upstream calls (docs/budget.md), when it had one. */
    bound?: number,
  ): void;
  /**
   * One call of an MCP tool (docs/agents.md): its outcome — `success`, `error` (a tool error
   * result), `refused` (its bound exceeded what was left of the window for it: nothing was spent) —
   * and the upstream requests it made. Tool names are the operator's, fixed at start-up.
   */
  toolCall(tool: string, outcome: 'success' | 'error' | 'refused', upstream: number): void;
  breakerState(breakerClass: string, state: CircuitState): void;
  /** Calls of tokens the upstream has not accepted yet: probes in flight, calls waiting. */
  unprovenCalls(inFlight: number, waiting: number): void;
}

/** Operation names are client-chosen: keep well-formed ones, and at most this many distinct. */
const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** A circuit's state as reported (upstream/http/circuit-breaker.ts keeps circuits in these states). */
export type CircuitState = 'closed' | 'open' | 'half-open';

const BREAKER_STATE_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

/**
 * `make`'s result for each set of labels, made on first use and kept: as bounded as the labels are
 * (operation names: MAX_OPERATION_NAMES; routes: the templates Weft declares; HTTP statuses).
 */
function lookedUpOnce<Labels extends (string | number)[], Series>(
  make: (...labels: Labels) => Series,
): (...labels: Labels) => Series {
  const made = new Map<string, Series>();
  return (...labels) => {
    const key = labels.join(' ');
    let found = made.get(key);
    if (found === undefined) {
      found = make(...labels);
      made.set(key, found);
    }
    return found;
  };
}

export function createGatewayMetrics(options: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, prefix: 'weft_' });

  const operations = new Counter({
    name: 'weft_graphql_operations_total',
    help: 'GraphQL operations by operation name and outcome',
    labelNames: ['operation', 'outcome'],
    registers: [registry],
  });
  const operationSeconds = new Histogram({
    name: 'weft_graphql_operation_duration_seconds',
    help: 'GraphQL operation latency',
    labelNames: ['operation'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const upstreamCalls = new Counter({
    name: 'weft_upstream_requests_total',
    help: 'Upstream HTTP requests by route template and status',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  const upstreamSeconds = new Histogram({
    name: 'weft_upstream_request_duration_seconds',
    help: 'Upstream request latency by route template',
    labelNames: ['route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: 'weft_cache_lookups_total',
    help: 'Upstream response cache lookups (hit, miss, stale = served stale on an upstream failure)',
    labelNames: ['result'],
    registers: [registry],
  });
  const crossReplicaFlights = new Counter({
    name: 'weft_cross_replica_flights_total',
    help: 'Cache misses fetched across replicas: led (fetched for the others), joined (answered by another replica), alone',
    labelNames: ['role'],
    registers: [registry],
  });
  const bucketWaits = new Counter({
    name: 'weft_bucket_waits_total',
    help: 'Upstream calls that waited for a token, by bucket and call priority',
    labelNames: ['bucket', 'priority'],
    registers: [registry],
  });
  const bucketRefusals = new Counter({
    name: 'weft_bucket_refusals_total',
    help: 'Upstream calls refused because a bucket stayed empty (RATE_LIMITED), by call priority',
    labelNames: ['bucket', 'priority'],
    registers: [registry],
  });
  const upstream429s = new Counter({
    name: 'weft_upstream_rate_limited_total',
    help: 'Upstream answers 429 (the limiter did not foresee them), by call priority',
    labelNames: ['priority'],
    registers: [registry],
  });
  const droppedCalls = new Counter({
    name: 'weft_upstream_calls_dropped_total',
    help: 'Upstream reads dropped before they were sent because their clients had left (CLIENT_GONE), by route',
    labelNames: ['route'],
    registers: [registry],
  });
  const operationUpstreamCalls = new Counter({
    name: 'weft_operation_upstream_calls_total',
    help: 'Upstream requests operations made (retries included), by operation name',
    labelNames: ['operation'],
    registers: [registry],
  });
  const operationServedWithoutUpstream = new Counter({
    name: 'weft_operation_served_without_upstream_total',
    help: 'Upstream calls operations needed and got without one (cache, coalesced, stale, refused), by operation name',
    labelNames: ['operation'],
    registers: [registry],
  });
  const operationUpstreamBound = new Counter({
    name: 'weft_operation_upstream_calls_bound_total',
    help: 'Upper bounds of upstream calls of the operations run (beside the calls they made), by operation name',
    labelNames: ['operation'],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'weft_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (success, error, refused before any upstream call)',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const toolUpstreamCalls = new Counter({
    name: 'weft_mcp_tool_upstream_calls_total',
    help: 'Upstream requests MCP tool calls made (retries included), by tool',
    labelNames: ['tool'],
    registers: [registry],
  });
  const breakers = new Gauge({
    name: 'weft_circuit_breaker_state',
    help: 'Circuit state per upstream route class (0 closed, 1 half-open, 2 open)',
    labelNames: ['class'],
    registers: [registry],
  });

  const unproven = new Gauge({
    name: 'weft_unproven_calls',
    help: 'Calls of tokens the upstream has not accepted yet (state: in_flight to the upstream, waiting at the gate)',
    labelNames: ['state'],
    registers: [registry],
  });
  unproven.set({ state: 'in_flight' }, 0);
  unproven.set({ state: 'waiting' }, 0);

  const seenNames = new Set<string>();
  const operationLabel = (name: string | null | undefined): string => {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name)) return 'invalid';
    if (!seenNames.has(name)) {
      if (seenNames.size >= MAX_OPERATION_NAMES) return 'other';
      seenNames.add(name);
    }
    return name;
  };

  // prom-client's `labels()` checks a label set and builds its series' functions on every call (a
  // visible share of a replayed answer's cost, and of every upstream call): each label set's series
  // is made once. An observation through it still hashes its labels; prom-client offers no way
  // around that.
  const operationSeries = lookedUpOnce((operation: string, outcome: string) => ({
    count: operations.labels({ operation, outcome }),
    seconds: operationSeconds.labels({ operation }),
  }));
  const upstreamSeries = lookedUpOnce((route: string, status: number | 'error') => ({
    count: upstreamCalls.labels({ route, status: String(status) }),
    seconds: upstreamSeconds.labels({ route }),
  }));
  const operationUpstreamSeries = lookedUpOnce((operation: string) => ({
    bound: operationUpstreamBound.labels({ operation }),
    calls: operationUpstreamCalls.labels({ operation }),
    withoutUpstream: operationServedWithoutUpstream.labels({ operation }),
  }));

  return {
    registry,
    operation(name, outcome, seconds) {
      const operation = operationLabel(name);
      const { count, seconds: duration } = operationSeries(operation, outcome);
      count.inc();
      duration.observe(seconds);
    },
    upstreamCall(method, route, status, seconds) {
      const { count, seconds: duration } = upstreamSeries(`${method} ${route}`, status);
      count.inc();
      duration.observe(seconds);
    },
    cacheLookup: (result) => cacheLookups.inc({ result }),
    crossReplicaFlight: (role) => crossReplicaFlights.inc({ role }),
    bucketWait: (bucket, priority) => bucketWaits.inc({ bucket, priority }),
    bucketRefusal: (bucket, priority) => bucketRefusals.inc({ bucket, priority }),
    upstreamRateLimited: (priority) => upstream429s.inc({ priority }),
    upstreamCallDropped: (route) => droppedCalls.inc({ route }),
    operationUpstream(name, upstream, withoutUpstream, bound) {
      const counts = operationUpstreamSeries(operationLabel(name));
      if (bound !== undefined && bound > 0 && Number.isFinite(bound)) counts.bound.inc(bound);
      if (upstream > 0) counts.calls.inc(upstream);
      if (withoutUpstream > 0) counts.withoutUpstream.inc(withoutUpstream);
    },
    toolCall(tool, outcome, upstream) {
      toolCalls.inc({ tool, outcome });
      if (upstream > 0) toolUpstreamCalls.inc({ tool }, upstream);
    },
    breakerState: (breakerClass, state) =>
      breakers.set({ class: breakerClass }, BREAKER_STATE_VALUE[state]),
    unprovenCalls(inFlight, waiting) {
      unproven.set({ state: 'in_flight' }, inFlight);
      unproven.set({ state: 'waiting' }, waiting);
    },
  };
}

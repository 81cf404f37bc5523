/**
 * Apollo Server's plugins, all of them, in the order they act on a request, by phase. Apollo starts
 * each hook of a phase in this order and asks `responseForOperation` of one plugin after the other
 * until one answers, so the order is behaviour: the pipeline's checks decide before demand control
 * reads the budget, and `@defer` is executed in parts only when no plugin before answered. A new
 * plugin is placed here, in its phase.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { GatewayContext } from '../../kit/request-context.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { Tracing } from '../../observability/tracing.ts';
import { demandControlPlugin } from '../demand-control/demand-control.plugin.ts';
import { incrementalDeliveryPlugin } from '../incremental/incremental-delivery.plugin.ts';
import type { OperationPipeline } from '../operation-pipeline.ts';
import type { ResponseErrors } from '../response-errors.ts';
import { observabilityPlugin } from './observability.plugin.ts';
import { requestLifecyclePlugin } from './request-lifecycle.plugin.ts';
import { upstreamFactsPlugin } from './upstream-facts.plugin.ts';

type Plugin = ApolloServerPlugin<GatewayContext>;

/** The parts the plugins are made of, each built by its own feature. */
export interface ApolloPluginParts {
  readonly metrics: GatewayMetrics | undefined;
  readonly tracing: Tracing | undefined;
  /** The shutdown deadline's notes of what each request started (shutdown/drain-deadline.ts). */
  readonly drain: Plugin;
  /** Stores a replayable answer (RESPONSE_CACHE); its replay is the route's, before Apollo. */
  readonly replayStore: Plugin | undefined;
  readonly pipeline: OperationPipeline;
  readonly idempotency: Plugin;
  readonly responseErrors: ResponseErrors;
}

export function apolloPlugins(parts: ApolloPluginParts): Plugin[] {
  const { metrics, tracing, pipeline } = parts;
  return [
    // Apollo's own, off. Cache-Control is Weft's (the lifecycle and replay plugins): Apollo's would
    // instrument every resolver call for a policy nothing reads. Inline tracing acts only for a
    // federation subgraph (which this graph is not), and would load Apollo's usage-reporting
    // protobuf at every start-up.
    ApolloServerPluginLandingPageDisabled(),
    ApolloServerPluginCacheControlDisabled(),
    ApolloServerPluginInlineTraceDisabled(),

    // The whole request, from its start to its answer: its log line and unexpected errors (and a
    // subscription sent as plain JSON refused, the first answer before execution); what the
    // upstream layer learned; metrics and the operation's span; what the shutdown deadline needs.
    requestLifecyclePlugin(),
    upstreamFactsPlugin(metrics),
    observabilityPlugin(metrics, tracing),
    parts.drain,
    ...(parts.replayStore ? [parts.replayStore] : []),

    // Before execution (operation-pipeline.ts, steps 7 and 8): the operation's checks; demand
    // control on what they let in, which answers `Weft-Estimate: 1` with the bound; a mutation's
    // `Idempotency-Key`, which answers a retry with the recorded result.
    pipeline.apolloPlugin(),
    ...(pipeline.callPolicy
      ? [demandControlPlugin(pipeline.callPolicy, pipeline.passedChecks)]
      : []),
    parts.idempotency,

    // Execution: a query with `@defer` or `@stream`, for a client that reads parts, in parts —
    // last, so only when no plugin before answered (else Apollo executes it, in one answer).
    incrementalDeliveryPlugin(parts.responseErrors),
  ];
}

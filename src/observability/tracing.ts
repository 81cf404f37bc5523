/**
 * OpenTelemetry tracing, off by default (`TRACING=off`; docs/observability.md). With `TRACING=log` or
 * `otlp`, every HTTP request to the GraphQL route is a SERVER span, its GraphQL operation a child,
 * and every upstream attempt (each HTTP request, retries included) a CLIENT span below that, whose
 * `traceparent` the upstream receives. `log` writes finished spans as JSON log lines; `otlp` batches
 * them to a collector (otlp-exporter.ts) and flushes the batch when the gateway closes.
 *
 * Span names and attributes carry route templates, operation names and types, a document hash and
 * numbers: never a token, a variable value, an id, a raw path or a query string.
 *
 * Only a gateway with tracing on loads this module and OpenTelemetry (create-gateway.ts imports it
 * when asked; everything else refers to it by type): loading the SDK would slow every start-up. No
 * global context manager is installed either: every parent is passed explicitly.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { createOtlpExporter, otlpTarget } from './otlp-exporter.ts';
import { incomingTrace, outgoingTraceHeaders } from './trace-context.ts';

/** How one upstream attempt ended: the upstream's answer, or why there was none. */
export type AttemptOutcome =
  | { readonly status: number; readonly headers: Readonly<Record<string, string>> }
  | { readonly error: string };

/**
 * The upstream calls of one operation as its ledger reports them (`upstream/upstream-ledger.ts`;
 * restated here, as this layer sits below the upstream one).
 */
export interface UpstreamCalls {
  readonly calls: readonly {
    readonly method: string;
    readonly route: string;
    readonly source: string;
    readonly limiter?: string | undefined;
  }[];
  readonly totals: { readonly upstream: number; readonly withoutUpstream: number };
}

/** The span of one upstream attempt, started before the request leaves. */
export interface UpstreamAttempt {
  /** `traceparent` (and `tracestate`) naming this attempt's span: sent with the request. */
  readonly headers: Readonly<Record<string, string>>;
  end(outcome: AttemptOutcome): void;
}

export interface Tracing {
  /** Gives every request to `path` a SERVER span (Fastify hooks; call before the route is added). */
  traceRoute(app: FastifyInstance, path: string): void;
  /** The SERVER span of a request to the traced route. */
  requestSpan(request: FastifyRequest): Span | undefined;
  /** Starts the span of one GraphQL operation, below its request's span. */
  startOperation(
    parent: Span | undefined,
    operation: { type: string; name: string | null | undefined; documentHash: string | undefined },
  ): Span;
  /**
   * Ends an operation's span with its errors (an error status when there is any) and, when the
   * request kept its upstream ledger, the calls it needed.
   */
  endOperation(
    span: Span,
    errors: readonly { extensions?: Record<string, unknown> }[],
    upstream?: UpstreamCalls,
  ): void;
  /**
   * Starts the span of one upstream attempt below `parent` (the operation's span); undefined when
   * the call serves no traced request. `resendCount` is the attempts of the same call before it.
   */
  startUpstream(
    parent: Span | undefined,
    call: { readonly method: string; readonly route: string },
    resendCount: number,
  ): UpstreamAttempt | undefined;
  /** Ends the spans' export: the batch still waiting is sent (bounded by {@link FLUSH_BOUND_MS}). */
  shutdown(): Promise<void>;
}

/**
 * How long closing waits for the last batch: main.ts gives the pools, Redis and tracing 5 s
 * together after the drain, and a collector that does not answer must not take all of it.
 */
const FLUSH_BOUND_MS = 3_000;

/** Exports finished spans as log lines (no collector is reachable from every deployment). */
export function createLogSpanExporter(logger: FastifyBaseLogger): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: { code: 0 }) => void) {
      for (const span of spans) {
        const context = span.spanContext();
        logger.info(
          {
            traceId: context.traceId,
            spanId: context.spanId,
            parentSpanId: span.parentSpanContext?.spanId ?? null,
            span: span.name,
            durationMs: span.duration[0] * 1000 + span.duration[1] / 1e6,
            attributes: span.attributes,
          },
          'trace span',
        );
      }
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  };
}

/** The exporter, telling the log when a batch could not be delivered (OpenTelemetry says nothing). */
function reportingFailures(exporter: SpanExporter, logger: FastifyBaseLogger): SpanExporter {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          logger.warn(
            { spans: spans.length, error: result.error?.message },
            'trace export failed; these spans are lost',
          );
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The `Number` of a header, or undefined when it is absent or not a number. */
const numberOf = (value: string | undefined): number | undefined => {
  if (value === undefined || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
};

export interface TracingOptions {
  readonly processor: SpanProcessor;
  readonly serviceName: string;
  /** Whether an incoming `traceparent` continues the caller's trace (trace-context.ts). */
  readonly trustTraceparent: boolean;
  /** The upstream's base URL: `server.address` and `server.port` of the attempt spans. */
  readonly upstreamUrl: string;
  readonly logger?: FastifyBaseLogger;
}

export function createTracing(options: TracingOptions): Tracing {
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ 'service.name': options.serviceName }),
    ),
    // A trusted caller's sampling decision holds (its unsampled trace stays unsampled downstream);
    // a trace Weft starts is always sampled.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [options.processor],
  });
  const tracer: Tracer = provider.getTracer('weft');
  const upstream = new URL(options.upstreamUrl);
  const server: Attributes = {
    'server.address': upstream.hostname.replace(/^\[|\]$/g, ''),
    'server.port': Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80)),
  };
  const requestSpans = new WeakMap<FastifyRequest, Span>();

  const endRequest = (request: FastifyRequest, status: number | undefined) => {
    const span = requestSpans.get(request);
    if (!span) return;
    requestSpans.delete(request);
    if (status === undefined) {
      // The client went away before the answer.
      span.setAttribute('error.type', 'aborted');
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttribute('http.response.status_code', status);
      // A 4xx is the client's doing: not an error of this server's span (HTTP semantic conventions).
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    span.end();
  };

  return {
    traceRoute(app, path) {
      app.addHook('onRequest', async (request, reply) => {
        if (request.routeOptions.url !== path) return;
        const { parent, links } = incomingTrace(request.headers, options.trustTraceparent);
        const span = tracer.startSpan(
          `${request.method} ${path}`,
          {
            kind: SpanKind.SERVER,
            links: [...links],
            attributes: {
              'http.request.method': request.method,
              'http.route': path,
              'url.path': path,
              'url.scheme': request.protocol,
              'network.protocol.version': request.raw.httpVersion,
            },
          },
          parent,
        );
        requestSpans.set(request, span);
        // The socket's end, not Fastify's onResponse: an SSE stream's reply is hijacked, and a
        // client may leave before the answer.
        reply.raw.once('close', () =>
          endRequest(request, reply.raw.writableFinished ? reply.raw.statusCode : undefined),
        );
      });
    },

    requestSpan: (request) => requestSpans.get(request),

    startOperation(parent, operation) {
      // The GraphQL semantic conventions name the span by the operation type only (the name is the
      // client's and unbounded); INTERNAL, as the request's span is this process's SERVER span.
      return tracer.startSpan(
        operation.type,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'graphql.operation.type': operation.type,
            ...(operation.name ? { 'graphql.operation.name': operation.name } : {}),
            // The document's text may hold literal values: its SHA-256 (the persisted-query id) names it.
            ...(operation.documentHash
              ? { 'weft.graphql.document.hash': operation.documentHash }
              : {}),
          },
        },
        parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
      );
    },

    endOperation(span, errors, upstream) {
      span.setAttribute('weft.graphql.error_count', errors.length);
      if (upstream) {
        span.setAttribute('weft.upstream.requests', upstream.totals.upstream);
        span.setAttribute('weft.upstream.calls_without_upstream', upstream.totals.withoutUpstream);
        // A call served without the upstream sends nothing, so it has no attempt span: an event says
        // what served it instead.
        for (const call of upstream.calls) {
          if (call.source === 'network') continue;
          span.addEvent('weft.upstream.call', {
            'http.request.method': call.method,
            'url.template': call.route,
            'weft.upstream.source': call.source,
            ...(call.limiter ? { 'weft.upstream.limiter': call.limiter } : {}),
          });
        }
      }
      if (errors.length > 0) {
        const code = errors[0]?.extensions?.code;
        span.setAttribute('error.type', typeof code === 'string' ? code : '_OTHER');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },

    startUpstream(parent, call, resendCount) {
      if (!parent) return undefined;
      const span = tracer.startSpan(
        `${call.method} ${call.route}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': call.method,
            'url.template': call.route,
            ...server,
            ...(resendCount > 0 ? { 'http.request.resend_count': resendCount } : {}),
          },
        },
        // Explicit parent: Apollo's execution is not wrapped in an OpenTelemetry context.
        trace.setSpan(ROOT_CONTEXT, parent),
      );
      return {
        headers: outgoingTraceHeaders(span),
        end(outcome) {
          if ('error' in outcome) {
            span.setAttribute('error.type', outcome.error);
            span.setStatus({ code: SpanStatusCode.ERROR });
          } else {
            span.setAttribute('http.response.status_code', outcome.status);
            const remaining = numberOf(outcome.headers['ratelimit-remaining']);
            if (remaining !== undefined) span.setAttribute('weft.budget.remaining', remaining);
            if (outcome.status >= 400) {
              span.setAttribute('error.type', String(outcome.status));
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
          }
          span.end();
        },
      };
    },

    async shutdown() {
      let bound: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        bound = setTimeout(resolve, FLUSH_BOUND_MS, 'timeout');
      });
      const result = await Promise.race([
        provider.shutdown().then(
          () => 'done' as const,
          (error: unknown) => error,
        ),
        timedOut,
      ]);
      clearTimeout(bound);
      if (result !== 'done') {
        options.logger?.warn(
          { error: result === 'timeout' ? `no answer in ${FLUSH_BOUND_MS} ms` : String(result) },
          'the last trace spans were not delivered',
        );
      }
    },
  };
}

/** The tracing `config.TRACING` asks for (`log` or `otlp`). */
export async function loadTracing(
  config: Pick<
    Config,
    | 'TRACING'
    | 'TRACING_TRUST_TRACEPARENT'
    | 'OTEL_SERVICE_NAME'
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_PROTOCOL'
    | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  >,
  logger: FastifyBaseLogger,
  upstreamUrl: string,
): Promise<Tracing> {
  let processor: SpanProcessor;
  if (config.TRACING === 'otlp') {
    const target = otlpTarget(config);
    const exporter = reportingFailures(await createOtlpExporter(target), logger);
    processor = new BatchSpanProcessor(exporter);
    // Without user information: a URL may carry the collector's credentials.
    const shown = new URL(target.url);
    shown.username = '';
    shown.password = '';
    logger.info({ endpoint: shown.href, protocol: target.protocol }, 'exporting traces over OTLP');
  } else {
    processor = new SimpleSpanProcessor(createLogSpanExporter(logger));
  }
  return createTracing({
    processor,
    serviceName: config.OTEL_SERVICE_NAME,
    trustTraceparent: config.TRACING_TRUST_TRACEPARENT,
    upstreamUrl,
    logger,
  });
}

/**
 * OpenTelemetry tracing, off by default (`TRACING=off`). With `TRACING=log`, every GraphQL operation
 * is a span and every upstream attempt a child span, exported as JSON log lines. Span attributes name
 * operations and route templates only: never a token, a variable, an id or a raw path.
 *
 * Only a gateway with `TRACING=log` loads this module and OpenTelemetry (create-gateway.ts imports it
 * when asked; everything else refers to it by type): loading the SDK would slow every start-up.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { FastifyBaseLogger } from 'fastify';

export interface Tracing {
  /** Starts the span of one GraphQL operation. */
  startOperation(operationName: string | null | undefined): Span;
  /** Ends an operation's span with its error count (an error status when there is any). */
  endOperation(span: Span, errorCount: number): void;
  /** Records one upstream attempt as a child of `parent` (when the request is traced). */
  recordUpstream(
    parent: Span | undefined,
    call: { method: string; route: string },
    status: number | 'error',
    startedAt: number,
    endedAt: number,
  ): void;
  shutdown(): Promise<void>;
}

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

export function createTracing(exporter: SpanExporter): Tracing {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer: Tracer = provider.getTracer('weft');
  return {
    startOperation: (operationName) =>
      tracer.startSpan('graphql.operation', {
        kind: SpanKind.SERVER,
        attributes: { 'graphql.operation.name': operationName ?? 'anonymous' },
      }),
    endOperation(span, errorCount) {
      if (errorCount > 0) span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('graphql.errors', errorCount);
      span.end();
    },
    recordUpstream(parent, call, status, startedAt, endedAt) {
      if (!parent) return;
      const span = tracer.startSpan(
        `upstream ${call.method} ${call.route}`,
        {
          kind: SpanKind.CLIENT,
          startTime: startedAt,
          attributes: {
            'http.request.method': call.method,
            'url.template': call.route,
            ...(status === 'error' ? {} : { 'http.response.status_code': status }),
          },
        },
        // Explicit parent: Apollo's execution is not wrapped in an OpenTelemetry context.
        trace.setSpan(ROOT_CONTEXT, parent),
      );
      if (status === 'error' || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(endedAt);
    },
    shutdown: () => provider.shutdown(),
  };
}

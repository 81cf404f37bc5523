/** Logs, metrics and OpenTelemetry tracing. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { flag } from '../switches.ts';
import { httpUrl } from '../values.ts';

const OTLP_PROTOCOL = z.enum(['http/protobuf', 'http/json', 'grpc']);

export const OBSERVABILITY = configGroup(
  'Observability',
  'Logs, metrics and traces ([observability](observability.md)).',
  {
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino log level.'),
    METRICS: flag('on').describe('Prometheus metrics on `GET /metrics`.'),
    TRACING: z
      .enum(['off', 'log', 'otlp'])
      .default('off')
      .describe(
        'OpenTelemetry spans: `log` (as JSON log lines) or `otlp` (to a collector over OTLP/HTTP).',
      ),
    TRACING_TRUST_TRACEPARENT: flag('off').describe(
      "`on`: a request's `traceparent` continues the caller's trace; `off`: it becomes a link.",
    ),
    OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl()
      .optional()
      .describe(
        'TRACING=otlp: the collector base URL; traces go to its `v1/traces` (default `http://localhost:4318`).',
      ),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl()
      .optional()
      .describe(
        'TRACING=otlp: the full traces URL, used as is; wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
      ),
    // `grpc` is accepted here (a platform may set it for other processes) and refused only when it
    // would apply: Weft exports over OTLP/HTTP.
    OTEL_EXPORTER_OTLP_PROTOCOL: OTLP_PROTOCOL.optional().describe(
      'TRACING=otlp: the encoding; unset: `http/protobuf`. `grpc` is refused with TRACING=otlp.',
    ),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: OTLP_PROTOCOL.optional().describe(
      'TRACING=otlp: the encoding of traces; wins over OTEL_EXPORTER_OTLP_PROTOCOL.',
    ),
    OTEL_SERVICE_NAME: z
      .string()
      .min(1)
      .default('weft')
      .describe("The `service.name` of Weft's spans."),
  },
);

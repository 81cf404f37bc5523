/**
 * The OTLP/HTTP span exporter of `TRACING=otlp`, configured by the variables the OpenTelemetry
 * specification defines ("OpenTelemetry Protocol Exporter"; docs/observability.md): the signal-specific
 * endpoint and protocol win over the general ones. Only the exporter of the chosen encoding is
 * loaded. The exporter package itself also reads the variables Weft leaves to it
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`, `_COMPRESSION`, the certificate files).
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpTarget {
  readonly url: string;
  readonly protocol: OtlpProtocol;
}

/** The specification's default collector for OTLP/HTTP (port 4318). */
const DEFAULT_ENDPOINT = 'http://localhost:4318';

/**
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is; `OTEL_EXPORTER_OTLP_ENDPOINT` is a base to
 * which `v1/traces` is appended, after the path it may already have ("Endpoint URLs for OTLP/HTTP").
 */
export function otlpTarget(
  config: Pick<
    Config,
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_PROTOCOL'
    | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  >,
): OtlpTarget {
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_ENDPOINT;
  const url =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    `${base.endsWith('/') ? base : `${base}/`}v1/traces`;
  const protocol =
    config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    config.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf';
  // loadConfig refuses grpc with TRACING=otlp.
  if (protocol === 'grpc') throw new Error('OTLP over gRPC is not supported');
  return { url, protocol };
}

export async function createOtlpExporter(target: OtlpTarget): Promise<SpanExporter> {
  const { OTLPTraceExporter } =
    target.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: target.url });
}

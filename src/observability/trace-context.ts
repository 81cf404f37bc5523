/**
 * W3C trace context at Weft's two edges (docs/observability.md "Trace context"): what an incoming
 * request's `traceparent`/`tracestate` make of its span, and the headers that name an upstream
 * attempt's span. OpenTelemetry's own propagator parses and writes the headers, so a malformed or
 * unsupported `traceparent` is ignored exactly as the W3C specification says.
 *
 * Loaded only with tracing on (tracing.ts imports it).
 */
import {
  ROOT_CONTEXT,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { IncomingHttpHeaders } from 'node:http';

const propagator = new W3CTraceContextPropagator();

/** Where a request's span starts: a parent context, and links to contexts it does not continue. */
export interface IncomingTrace {
  readonly parent: Context;
  readonly links: readonly Link[];
}

const NEW_TRACE: IncomingTrace = { parent: ROOT_CONTEXT, links: [] };

/**
 * Trusted, the caller's context becomes the parent: its trace id, its sampling decision and its
 * `tracestate`. Untrusted, the span starts a new trace (Weft's own id and sampling) and keeps the
 * caller's trace id and span id as a link only, without its `tracestate` (free text from a client).
 */
export function incomingTrace(headers: IncomingHttpHeaders, trust: boolean): IncomingTrace {
  if (headers.traceparent === undefined) return NEW_TRACE;
  const extracted = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const remote = trace.getSpanContext(extracted);
  if (!remote) return NEW_TRACE;
  if (trust) return { parent: extracted, links: [] };
  const { traceId, spanId, traceFlags } = remote;
  return {
    parent: ROOT_CONTEXT,
    links: [{ context: { traceId, spanId, traceFlags, isRemote: true } }],
  };
}

/** The `traceparent` (and `tracestate`, when the trace has one) that name `span` downstream. */
export function outgoingTraceHeaders(span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier;
}

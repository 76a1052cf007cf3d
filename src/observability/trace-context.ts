/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as the API and the back-end carry it: the
 * `traceparent` header of a request, checked by OpenTelemetry's own parser, goes on in the record header
 * (CBHDR's HDR-TRACEPARENT) and into log lines as `trace_id` and `span_id`. Always on, also without
 * tracing: then the caller's context passes through unchanged, as OpenTelemetry's API does without an
 * SDK, and a request that sent none carries none (its request id correlates its lines). The ids of a
 * traceparent for a log line: trace-log.ts (the back-end's side, which needs nothing of OpenTelemetry).
 */
import { TraceFlags, type SpanContext } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';

/** The span context a `traceparent` header states, or null when it is missing or malformed (then ignored). */
export function parseTraceparentHeader(value: string | string[] | undefined): SpanContext | null {
  return typeof value === 'string' ? parseTraceParent(value) : null;
}

/** The version-00 traceparent of a span context (55 characters), as it is sent on. */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
}

/** The caller's traceparent, normalised to version 00; empty when none or a malformed one was sent. */
export function incomingTraceparent(value: string | string[] | undefined): string {
  const context = parseTraceparentHeader(value);
  return context ? formatTraceparent(context) : '';
}

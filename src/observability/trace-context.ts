/**
 * W3C Trace Context as the API and the back-end carry it: a request's `traceparent` goes on in the record
 * header (HDR-TRACEPARENT) and into log lines, also when tracing is off, so a call can be followed end to end.
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

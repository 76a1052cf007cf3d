/**
 * An app's metrics and (when configured) tracing, decorated on the Fastify instance as `observability`,
 * so the request log, the back-end client, the rate limits and the idempotency hook reach the same ones.
 */
import type { FastifyRequest } from 'fastify';
import type { Span } from '@opentelemetry/api';
import { createMetrics, type Metrics } from './metrics.ts';
import { formatTraceparent, incomingTraceparent } from './trace-context.ts';
import type { Tracing, TracingSettings } from './tracing.ts';

export interface Observability {
  metrics: Metrics;
  /** null: tracing is off (no OTLP endpoint configured); traceparent still passes through. */
  tracing: Tracing | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    observability: Observability;
  }
  interface FastifyRequest {
    /** The request's SERVER span, when tracing is on. */
    traceSpan: Span | null;
  }
}

/** The OpenTelemetry SDK and exporter (about 300 ms to load) are loaded only when tracing is configured. */
export async function createObservability(tracing: TracingSettings | null): Promise<Observability> {
  return { metrics: createMetrics(), tracing: tracing ? (await import('./tracing.ts')).openTracing(tracing) : null };
}

/**
 * The traceparent a request's work belongs to: its own span's with tracing on, else the caller's valid one,
 * else empty.
 */
export function requestTraceparent(req: FastifyRequest): string {
  return req.traceSpan ? formatTraceparent(req.traceSpan.spanContext()) : incomingTraceparent(req.headers.traceparent);
}

export type { Metrics, Tracing, TracingSettings };

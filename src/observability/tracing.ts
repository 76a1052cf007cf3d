/**
 * OpenTelemetry tracing, on only when an OTLP endpoint is configured: a SERVER span per request and a CLIENT
 * span per back-end transaction. Each app has its own provider and passes contexts explicitly (tests build several).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { IncomingHttpHeaders } from 'node:http';

export interface TracingSettings {
  /** Where spans are POSTed (the OTLP/HTTP traces URL, …/v1/traces). */
  tracesEndpoint: string;
  serviceName: string;
}

export interface Tracing {
  /** The SERVER span of a request, child of the caller's traceparent (and tracestate) when valid. */
  startRequest(
    method: string,
    route: string | undefined,
    path: string,
    scheme: string,
    headers: IncomingHttpHeaders,
  ): Span;
  /** Sets the answer's status on a request's span and ends it; null: the client went away before the answer. */
  endRequest(span: Span, status: number | null): void;
  /** The CLIENT span of a back-end transaction, child of the request's span. */
  startTransaction(parent: Span | null, tran: string): Span;
  /** Sets the transaction's return code (or why it has none) and ends its span. */
  endTransaction(span: Span, returnCode: number | string, reasonCode: string): void;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

export function openTracing(settings: TracingSettings): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesEndpoint }))],
  });
  const tracer: Tracer = provider.getTracer('corebridge');
  return {
    startRequest(method, route, path, scheme, headers) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      return tracer.startSpan(
        route === undefined ? method : `${method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            [ATTR_HTTP_REQUEST_METHOD]: method,
            [ATTR_URL_PATH]: path,
            [ATTR_URL_SCHEME]: scheme,
            ...(route === undefined ? {} : { [ATTR_HTTP_ROUTE]: route }),
          },
        },
        parent,
      );
    },
    endRequest(span, status) {
      if (status === null) {
        span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        return;
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // Server spans: only 5xx is an error (a 4xx is the client's).
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
    startTransaction(parent, tran) {
      const context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
      return tracer.startSpan(
        `backend ${tran}`,
        { kind: SpanKind.CLIENT, attributes: { 'corebridge.transaction': tran } },
        context,
      );
    },
    endTransaction(span, returnCode, reasonCode) {
      if (typeof returnCode === 'number') {
        span.setAttribute('corebridge.return_code', returnCode);
        if (reasonCode) span.setAttribute('corebridge.reason_code', reasonCode);
        // An abend or an unknown transaction is the back-end's failure; other codes are answers.
        if (returnCode >= 90) span.setStatus({ code: SpanStatusCode.ERROR });
      } else {
        span.setAttribute(ATTR_ERROR_TYPE, returnCode);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

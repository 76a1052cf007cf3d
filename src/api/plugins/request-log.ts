/**
 * One log line per request, written when the response is sent, with the back-end transaction's facts and the
 * trace it belongs to; the same hook records the duration metric and ends the span, one hook for all three.
 */
import type { FastifyInstance } from 'fastify';
import { requestTraceparent } from '../../observability/index.ts';
import { routeTemplate } from '../../observability/metrics.ts';
import { writeRequestLine } from '../logging/request-line.ts';

/**
 * The embedded identity provider's answers (discovery, JWKS, tokens, sign-in pages) are machinery that verifiers
 * and `npm run token` read on every check: at debug when they succeed; a refusal stays at info. The route is
 * src/identity/routes.ts's (MOUNT_PATH), which the API's modules do not import.
 */
const IDENTITY_ROUTE = '/oauth/*';

export function installRequestLog(app: FastifyInstance): void {
  const { metrics, tracing } = app.observability;
  app.decorateReply('problemCode', null);
  app.decorateRequest('backendCall', null);
  app.decorateRequest('traceSpan', null);
  if (tracing) {
    const scheme = app.initialConfig.https ? 'https' : 'http';
    app.addHook('onRequest', (req, _reply, done) => {
      const url = req.routeOptions.url;
      const path = req.url;
      const query = path.indexOf('?');
      req.traceSpan = tracing.startRequest(
        req.method,
        url === undefined ? undefined : routeTemplate(url),
        query < 0 ? path : path.slice(0, query),
        scheme,
        req.headers,
      );
      done();
    });
    app.addHook('onRequestAbort', (req, done) => {
      if (req.traceSpan) tracing.endRequest(req.traceSpan, null);
      req.traceSpan = null;
      done();
    });
  }
  app.addHook('onResponse', (req, reply, done) => {
    const status = reply.statusCode;
    const options = req.routeOptions;
    const elapsed = reply.elapsedTime;
    const traceparent = requestTraceparent(req);
    writeRequestLine(
      req.log,
      status >= 500 ? 'error' : status < 400 && options.url === IDENTITY_ROUTE ? 'debug' : 'info',
      status >= 500 ? 'request failed' : 'request completed',
      {
        method: req.method,
        url: req.url,
        route: options.url,
        status,
        ms: Math.round(elapsed * 100) / 100,
        principal: req.principal?.subject,
        client: req.ip,
        code: reply.problemCode ?? undefined,
        backend: req.backendCall ?? undefined,
        trace_id: traceparent ? traceparent.slice(3, 35) : undefined,
        span_id: traceparent ? traceparent.slice(36, 52) : undefined,
      },
    );
    metrics.observeRequest(options.config, options.url, req.method, status, elapsed / 1000);
    if (req.traceSpan) {
      tracing!.endRequest(req.traceSpan, status);
      req.traceSpan = null;
    }
    done();
  });
}

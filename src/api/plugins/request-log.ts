/**
 * One log line per request, written when the response is sent (Fastify's two default lines are off). It
 * carries the back-end transaction's facts too (code, return and reason code, round trip), so the
 * back-end's own line is a debug line.
 */
import type { FastifyInstance } from 'fastify';

export function installRequestLog(app: FastifyInstance): void {
  app.decorateReply('problemCode', null);
  app.decorateRequest('backendCall', null);
  app.addHook('onResponse', (req, reply, done) => {
    const status = reply.statusCode;
    const line = {
      method: req.method,
      url: req.url,
      route: req.routeOptions.url,
      status,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      principal: req.principal?.subject,
      code: reply.problemCode ?? undefined,
      backend: req.backendCall ?? undefined,
    };
    if (status >= 500) req.log.error(line, 'request failed');
    else req.log.info(line, 'request completed');
    done();
  });
}

/** One log line per request, written when the response is sent (Fastify's two default lines are off). */
import type { FastifyInstance } from 'fastify';

export function installRequestLog(app: FastifyInstance): void {
  app.decorateReply('problemCode', null);
  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    const line = {
      method: req.method,
      url: req.url,
      route: req.routeOptions.url,
      status,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      principal: req.principal?.subject,
      code: reply.problemCode ?? undefined,
    };
    if (status >= 500) req.log.error(line, 'request failed');
    else req.log.info(line, 'request completed');
  });
}

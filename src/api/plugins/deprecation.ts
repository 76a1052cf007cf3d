/**
 * Deprecation, Sunset and Link headers on every answer of a route the route table marks deprecated
 * (RFC 9745, RFC 8594); built once per route, and only deprecated routes get the hook.
 */
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import type { RouteAccess } from '../route-table.ts';
import { routeHooks } from './route-hooks.ts';

export function deprecationHeaders(deprecated: NonNullable<RouteAccess['deprecated']>): Record<string, string> {
  const since = Date.parse(deprecated.since);
  if (Number.isNaN(since)) throw new Error(`deprecated.since is not a date: ${deprecated.since}`);
  const headers: Record<string, string> = { deprecation: `@${Math.floor(since / 1000)}` };
  if (deprecated.sunset) {
    const sunset = Date.parse(deprecated.sunset);
    if (Number.isNaN(sunset)) throw new Error(`deprecated.sunset is not a date: ${deprecated.sunset}`);
    headers['sunset'] = new Date(sunset).toUTCString();
  }
  if (deprecated.link) headers['link'] = `<${deprecated.link}>; rel="deprecation"; type="text/html"`;
  return headers;
}

/** Registers before the routes: an onSend hook on each route whose table entry is deprecated. */
export function installDeprecation(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const deprecated = (route.config as { access?: RouteAccess } | undefined)?.access?.deprecated;
    if (!deprecated) return;
    const headers = deprecationHeaders(deprecated);
    const announce: onSendHookHandler = async (_req, reply, payload) => {
      reply.headers(headers);
      return payload;
    };
    route.onSend = [...routeHooks(route.onSend), announce];
  });
}

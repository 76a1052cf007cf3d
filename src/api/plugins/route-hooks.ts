/**
 * A route's own hooks of one kind as a list (Fastify accepts none, one, or an array), for onRoute hooks that add to
 * them.
 */
export function routeHooks<H>(own: H | H[] | undefined): H[] {
  return own === undefined ? [] : Array.isArray(own) ? own : [own];
}

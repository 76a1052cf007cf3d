/**
 * Authentication and route-level authorization. Each route's entry in the route table decides: no
 * entry and not public → the app refuses to start. 401 for a missing/invalid/expired token (with
 * WWW-Authenticate per RFC 6750), 403 for a valid token without the route's scope or role.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { TokenRejected, type TokenVerifier } from '../../auth/verifier.ts';
import type { Principal } from '../../auth/roles.ts';
import type { RouteAccess } from '../route-table.ts';

const REALM = 'corebridge';

/** RFC 6750 §2.1: b64token. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^bearer +/i;

/** The credentials after "Bearer " (unchecked): a cached token was checked when it was first verified. */
function bearerCredentials(header: string): string {
  const prefix = header.startsWith('Bearer ') ? 7 : (BEARER.exec(header)?.[0].length ?? 0);
  if (prefix === 0) throw new TokenRejected('the Authorization header is not a bearer token');
  let start = prefix;
  while (header.charCodeAt(start) === 32) start++;
  return header.slice(start);
}

/** App-wide: the typed principal on every request, and no route without a route-table entry. */
export function installRouteTableCheck(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const config = route.config as { access?: RouteAccess; public?: true } | undefined;
    // HEAD routes are generated from GET ones and inherit their config.
    if (!config?.access && !config?.public) {
      throw new Error(`route ${route.method} ${route.url} has no entry in the route table and is not public`);
    }
  });
}

export interface AuthOptions {
  /**
   * Runs once for a request whose credentials are not a known token's, before its signature is checked or
   * it is refused: the address ceiling of the rate limits.
   */
  beforeVerify?(req: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/** Authentication and authorization of the API routes; registered in their encapsulated context only. */
export function installAuth(app: FastifyInstance, verifier: TokenVerifier, options: AuthOptions = {}): void {
  // Callback-style: a token verified before (the usual request) is answered without a promise.
  app.addHook('onRequest', function authenticateRequest(req, reply, done) {
    const access = req.routeOptions.config.access;
    if (!access) return done();
    // A principal already set came from a verified client certificate (mutual-TLS listener).
    const known = req.principal ?? cachedPrincipal(req);
    if (known) {
      req.principal = known;
      return done(authorizationError(known, access));
    }
    authenticate(req, reply).then((principal) => {
      req.principal = principal;
      done(authorizationError(principal, access));
    }, done);
  });

  /** The principal of a well-formed bearer token in the verifier's cache; anything else takes authenticate(). */
  function cachedPrincipal(req: FastifyRequest): Principal | null {
    const header = req.headers.authorization;
    if (!header) return null;
    try {
      return verifier.cached(bearerCredentials(header)) ?? null;
    } catch {
      return null;
    }
  }

  /** A request whose credentials are not a cached token's (the hook answers those without it). */
  async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    // Each is counted once before it costs more: malformed credentials included, which never reach a
    // signature check.
    let counted = false;
    const countOnce = async () => {
      if (counted) return;
      counted = true;
      await options.beforeVerify?.(req, reply);
    };
    try {
      const header = req.headers.authorization;
      if (!header) {
        await countOnce();
        throw new ApiError('UNAUTHENTICATED', 'an access token is required', {
          headers: { 'www-authenticate': `Bearer realm="${REALM}"` },
        });
      }
      const token = bearerCredentials(header);
      await countOnce();
      if (!TOKEN68.test(token)) throw new TokenRejected('the Authorization header is not a bearer token');
      return await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      await countOnce();
      req.log.info(
        { reason: error.message, ...(error.principal ? { principal: error.principal } : {}) },
        'authentication failed',
      );
      throw new ApiError('UNAUTHENTICATED', error.message, {
        headers: {
          'www-authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${error.message}"`,
        },
      });
    }
  }

  /** Why `principal` may not call the route, or undefined when it may. */
  function authorizationError(principal: Principal, access: RouteAccess): ApiError | undefined {
    if (!principal.scopes.has(access.scope)) {
      return new ApiError('INSUFFICIENT_SCOPE', `this operation needs the scope ${access.scope}`, {
        headers: {
          'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${access.scope}"`,
        },
      });
    }
    if (!access.roles.includes(principal.role)) {
      return new ApiError('FORBIDDEN', `the ${principal.role} role may not perform this operation`);
    }
    return undefined;
  }
}

/** `customer-in-request` rule: a customer may only name themselves; fails closed with 404. */
export function assertMayNameCustomer(principal: Principal | null, customerId: string): void {
  if (!principal) throw new ApiError('NOT_FOUND');
  if (principal.role === 'customer' && principal.customerId !== customerId) {
    throw new ApiError('NOT_FOUND', 'customer not found');
  }
}

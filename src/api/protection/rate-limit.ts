/**
 * Rate limits (@fastify/rate-limit, in memory or in Redis so instances share counters), one counter lookup per
 * request: by address before anything runs or before an unknown token is verified, else by principal.
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { SAFE_METHODS } from '../../http-methods.ts';
import { ApiError } from '../../errors.ts';
import type { ProtectionConfig, RateLimitClass } from './config.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Rate-limit class of a route; by default read/write by method for API routes, public otherwise. */
    rateLimitClass?: RateLimitClass;
    /** A health probe: counted against no rate limit, its cost bounded by the route (src/api/protection/probes.ts). */
    probe?: boolean;
  }
}

interface Outcome {
  max: number;
  remaining: number;
  ttlInSeconds: number;
  isExceeded: boolean;
  isAllowed: boolean;
}

type Limiter = (req: FastifyRequest) => Promise<Outcome>;

interface Evaluated {
  policy: string;
  quota: number;
  remaining: number;
  resetSeconds: number;
}

const evaluated = new WeakMap<FastifyRequest, Evaluated[]>();

export function rateLimitClassOf(req: FastifyRequest): RateLimitClass {
  const config = req.routeOptions.config;
  if (config.rateLimitClass) return config.rateLimitClass;
  if (config.access) return SAFE_METHODS.has(req.method) ? 'read' : 'write';
  // The identity provider's endpoints (token, authorize, login) are their own class.
  if (/^\/(oauth|token)(\/|$)/.test(req.routeOptions.url ?? '')) return 'auth';
  return 'public';
}

function address(req: FastifyRequest): string {
  return normalizeIP(req.ip);
}

export interface RateLimits {
  /** Counts an unverified token's request against its address ceiling (before its signature is checked). */
  ceiling(req: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts an authenticated request against its principal; add it as an onRequest hook after authentication. */
  byPrincipal: onRequestHookHandler;
}

/** `redis`: the instance's Redis connection when REDIS_URL is set (src/api/redis.ts); else counters in memory. */
export async function installRateLimits(
  app: FastifyInstance,
  config: ProtectionConfig['rateLimit'],
  redis: Redis | null,
): Promise<RateLimits> {
  await app.register(rateLimit, {
    global: false,
    timeWindow: config.windowSeconds * 1000,
    ...(redis ? { redis, nameSpace: config.redisPrefix } : {}),
  });

  const limiter = (max: number, key: (req: FastifyRequest) => string): Limiter => {
    const check = app.createRateLimit({ max, keyGenerator: key });
    return (req) =>
      (check(req) as Promise<Outcome>).catch((error: unknown) => {
        req.log.error({ err: error }, 'rate-limit store unavailable');
        throw new ApiError('OVERLOADED', 'the rate-limit store is unavailable', { headers: { 'retry-after': '1' } });
      });
  };

  const classes = Object.keys(config.perClass) as RateLimitClass[];
  const byAddress = Object.fromEntries(
    classes.map((c) => [c, limiter(config.perClass[c], (req) => `address:${c}:${address(req)}`)]),
  ) as Record<RateLimitClass, Limiter>;
  const byPrincipal = Object.fromEntries(
    classes.map((c) => [c, limiter(config.perClass[c], (req) => `principal:${c}:${req.principal?.subject ?? ''}`)]),
  ) as Record<RateLimitClass, Limiter>;
  const ceiling = limiter(config.perAddress, (req) => `ceiling:${address(req)}`);

  // Promise chains rather than async functions: every request runs one of these.
  function apply(req: FastifyRequest, reply: FastifyReply, policy: string, check: Limiter): Promise<void> {
    return check(req).then((outcome) => record(req, reply, policy, outcome));
  }

  function record(req: FastifyRequest, reply: FastifyReply, policy: string, outcome: Outcome): void {
    const entry = { policy, quota: outcome.max, remaining: outcome.remaining, resetSeconds: outcome.ttlInSeconds };
    // Usually one check per request; a first-seen token adds its address ceiling before its principal.
    const earlier = evaluated.get(req);
    const list = earlier ? [...earlier, entry] : [entry];
    if (policy === 'address') evaluated.set(req, list);
    const headers = {
      'ratelimit-policy': list.map((e) => `"${e.policy}";q=${e.quota};w=${config.windowSeconds}`).join(', '),
      ratelimit: list.map((e) => `"${e.policy}";r=${e.remaining};t=${e.resetSeconds}`).join(', '),
    };
    reply.headers(headers);
    if (outcome.isExceeded) {
      const retryAfter = String(Math.max(1, outcome.ttlInSeconds));
      req.log.info({ policy }, 'rate limit exceeded');
      // Counted by the limit that refused, never by principal or address: those labels would grow without bound.
      req.server.observability.metrics.countRateLimited(policy);
      throw new ApiError(
        'RATE_LIMITED',
        `the ${policy} limit of ${outcome.max} requests per ${config.windowSeconds} s is used up; retry in ${retryAfter} s`,
        {
          headers: { ...headers, 'retry-after': retryAfter },
        },
      );
    }
  }

  // Anonymous requests, and every route outside the API (health, OpenAPI, the identity provider).
  // Callback-style: an API request with credentials, the usual one, passes without a promise.
  app.addHook('onRequest', (req, reply, done) => {
    if (req.routeOptions.config.probe) return done();
    if (req.routeOptions.config.access && (req.headers.authorization !== undefined || req.principal)) return done();
    const cls = rateLimitClassOf(req);
    apply(req, reply, cls, byAddress[cls]).then(() => done(), done);
  });

  return {
    ceiling: (req, reply) => apply(req, reply, 'address', ceiling),
    byPrincipal(req, reply, done) {
      if (!req.principal) return done();
      const cls = rateLimitClassOf(req);
      apply(req, reply, cls, byPrincipal[cls]).then(() => done(), done);
    },
  };
}

/**
 * Failed sign-ins counted per user name, whatever the client's address: `maxFailures` failures, each within
 * `lockSeconds` of the one before, refuse the name until `lockSeconds` after the last; refused attempts are not
 * counted. In Redis when REDIS_URL is set (every instance sees the same count), else in memory.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';

export interface LoginThrottle {
  /** Whether sign-in for this name is refused now. */
  locked(name: string): Promise<boolean>;
  /** Counts a failed attempt for this name. */
  failed(name: string): Promise<void>;
  /** A successful sign-in clears the name's failures. */
  succeeded(name: string): Promise<void>;
}

export interface LoginThrottleConfig {
  maxFailures: number;
  lockSeconds: number;
  /** Prefix of the Redis keys (RATE_LIMIT_REDIS_PREFIX). */
  redisPrefix: string;
}

/** Names tracked in memory at most: a caller trying many names evicts the oldest, never grows the process. */
const MEMORY_NAMES = 100_000;

/** Names are compared without case, so spelling a name differently does not buy more attempts. */
function nameKey(name: string): string {
  return createHash('sha256').update(name.toLowerCase()).digest('base64url').slice(0, 22);
}

export function createLoginThrottle(
  config: LoginThrottleConfig,
  redis: Redis | null,
  log: Pick<Logger, 'error'>,
  now: () => number = Date.now,
): LoginThrottle {
  const lockMs = config.lockSeconds * 1000;
  if (redis) return redisThrottle(config, redis, lockMs, log);

  const entries = new Map<string, { failures: number; until: number }>();
  const current = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.until <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    async locked(name) {
      return (current(nameKey(name))?.failures ?? 0) >= config.maxFailures;
    },
    async failed(name) {
      const key = nameKey(name);
      const failures = (current(key)?.failures ?? 0) + 1;
      // Re-inserted so the Map's order is the order of last failure: the oldest goes first.
      entries.delete(key);
      entries.set(key, { failures, until: now() + lockMs });
      if (entries.size > MEMORY_NAMES) entries.delete(entries.keys().next().value!);
    },
    async succeeded(name) {
      entries.delete(nameKey(name));
    },
  };
}

function redisThrottle(
  config: LoginThrottleConfig,
  redis: Redis,
  lockMs: number,
  log: Pick<Logger, 'error'>,
): LoginThrottle {
  const keyOf = (name: string) => `${config.redisPrefix}login:${nameKey(name)}`;
  // Like the rate limits: without the shared count an attempt is refused (503), never let through uncounted.
  const unavailable = (error: unknown): never => {
    log.error({ err: error }, 'sign-in throttle store unavailable');
    throw new ApiError('OVERLOADED', 'the sign-in throttle store is unavailable', { headers: { 'retry-after': '1' } });
  };
  return {
    async locked(name) {
      const count = await redis.get(keyOf(name)).catch(unavailable);
      return Number(count ?? 0) >= config.maxFailures;
    },
    async failed(name) {
      const key = keyOf(name);
      await redis.multi().incr(key).pexpire(key, lockMs).exec().catch(unavailable);
    },
    async succeeded(name) {
      await redis.del(keyOf(name)).catch(unavailable);
    },
  };
}

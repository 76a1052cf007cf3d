/** The idempotency store: Redis, shared by every API instance, when REDIS_URL is set; else this process's memory. */
import type { Redis } from 'ioredis';
import type { IdempotencySettings } from '../settings.ts';
import { openRedisIdempotencyStore } from './redis-store.ts';
import { openIdempotencyStore, type IdempotencyStore } from './store.ts';

export function openConfiguredIdempotencyStore(
  config: { idempotency: IdempotencySettings },
  redis: Redis | null,
): IdempotencyStore {
  if (redis) return openRedisIdempotencyStore(redis, { ...config.idempotency, prefix: config.idempotency.redisPrefix });
  return openIdempotencyStore(config.idempotency);
}

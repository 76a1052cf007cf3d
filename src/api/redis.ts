/**
 * The one Redis connection of an API instance (REDIS_URL): rate-limit counters and idempotency records,
 * the state API instances share. No offline queue: with Redis down a request fails at once (503) instead
 * of waiting.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export async function connectRedis(url: string, log: Pick<Logger, 'warn'>): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
  });
  redis.on('error', (error: Error) => log.warn({ err: error }, 'Redis connection error'));
  await redis.connect();
  return redis;
}

export async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}

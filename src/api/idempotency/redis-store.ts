/**
 * Idempotency records in Redis (REDIS_URL), so a retry that lands on another API instance finds its key. Each
 * decision is one Lua script, so two instances cannot both execute one key; times come from Redis' clock.
 */
import type { Redis } from 'ioredis';
import type { BeginResult, IdempotencyStore, StoredResponse } from './store.ts';

// KEYS[1] the record; ARGV request hash, lease ms, ttl ms.
const BEGIN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local r = redis.call('HMGET', KEYS[1], 'hash', 'state', 'lockedUntil', 'status', 'contentType', 'headers', 'body')
if not r[1] then
  redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'state', 'IN_FLIGHT', 'lockedUntil', now + tonumber(ARGV[2]))
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'execute'}
end
if r[1] ~= ARGV[1] then return {'mismatch'} end
if r[2] == 'DONE' then return {'replay', r[4], r[5], r[6], r[7]} end
if tonumber(r[3]) > now then return {'in-flight'} end
redis.call('HSET', KEYS[1], 'lockedUntil', now + tonumber(ARGV[2]))
return {'execute'}
`;

// Stores the answer on the caller's own in-flight record; a record that expired meanwhile stays gone.
const COMPLETE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'IN_FLIGHT' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'DONE', 'status', ARGV[1], 'contentType', ARGV[2], 'headers', ARGV[3], 'body', ARGV[4])
return 1
`;

const RELEASE = `
if redis.call('HGET', KEYS[1], 'state') == 'IN_FLIGHT' then return redis.call('DEL', KEYS[1]) end
return 0
`;

type Commands = Redis & {
  idempotencyBegin(key: string, hash: string, leaseMs: number, ttlMs: number): Promise<string[]>;
  idempotencyComplete(key: string, status: number, contentType: string, headers: string, body: string): Promise<number>;
  idempotencyRelease(key: string): Promise<number>;
};

export function openRedisIdempotencyStore(
  redis: Redis,
  options: { ttlSeconds: number; leaseMs: number; prefix: string },
): IdempotencyStore {
  redis.defineCommand('idempotencyBegin', { numberOfKeys: 1, lua: BEGIN });
  redis.defineCommand('idempotencyComplete', { numberOfKeys: 1, lua: COMPLETE });
  redis.defineCommand('idempotencyRelease', { numberOfKeys: 1, lua: RELEASE });
  const commands = redis as Commands;
  // The caller is a token subject or client id; encoded so that no caller can make another's key.
  const recordKey = (caller: string, key: string) => `${options.prefix}${encodeURIComponent(caller)}:${key}`;

  return {
    async begin(caller, key, requestHash): Promise<BeginResult> {
      const [outcome, status, contentType, headers, body] = await commands.idempotencyBegin(
        recordKey(caller, key),
        requestHash,
        options.leaseMs,
        options.ttlSeconds * 1000,
      );
      if (outcome === 'replay') {
        const response: StoredResponse = {
          statusCode: Number(status),
          contentType: contentType!,
          headers: JSON.parse(headers!) as Record<string, string>,
          body: body!,
        };
        return { outcome, response };
      }
      return { outcome: outcome as 'execute' | 'mismatch' | 'in-flight' };
    },
    async complete(caller, key, response) {
      await commands.idempotencyComplete(
        recordKey(caller, key),
        response.statusCode,
        response.contentType,
        JSON.stringify(response.headers),
        response.body,
      );
    },
    async release(caller, key) {
      await commands.idempotencyRelease(recordKey(caller, key));
    },
    // A record's TTL is its expiry, so there is nothing to purge.
    purgeExpired: () => 0,
    async clear() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${options.prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    },
    // The Redis connection is the app's (shared with rate limiting): it closes it.
    close: () => {},
  };
}

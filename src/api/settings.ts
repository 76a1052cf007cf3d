/** The HTTP server's settings: where it listens, where its data is, service files and idempotency records. */
import { resolve } from 'node:path';
import { integer, parsed, read, section, text, type Env } from '../settings/schema.ts';

export const DEFAULT_PORT = 8080;
export const DEFAULT_DATA_DIR = './data';

const HOST_NAME = /^[A-Za-z0-9.:\-[\]]+$/;

export const SERVER_SETTINGS = section('Listening and data', {
  PORT: integer({
    default: DEFAULT_PORT,
    min: 0,
    max: 65535,
    description: 'the API (HTTPS with TLS_CERT_FILE); 0 picks a free port',
  }),
  HOST: text({
    default: '0.0.0.0',
    pattern: HOST_NAME,
    allowed: 'host name or address',
    description: 'the address to listen on',
  }),
  DATA_DIR: text({
    default: DEFAULT_DATA_DIR,
    allowed: 'directory',
    description: "SQLite files, the development issuer's key, certificates",
  }),
});

export const SERVICES_SETTINGS = section('Service files', {
  SERVICES_DIR: parsed({
    allowed: 'directory',
    description: 'service files: API operations served by your COBOL programs',
    parse: (value) => (value ? resolve(value) : null),
  }),
});

export const IDEMPOTENCY_SETTINGS = section('Idempotency', {
  IDEMPOTENCY_TTL_SECONDS: integer({
    default: 86_400,
    min: 60,
    max: 30 * 86_400,
    description: 'how long a key and its response are kept',
  }),
  IDEMPOTENCY_LEASE_MS: integer({
    default: 10_000,
    min: 100,
    max: 600_000,
    description: 'how long a key in flight answers 409 before a retry may run it again',
  }),
  IDEMPOTENCY_CACHE_MB: integer({
    default: 4,
    min: 1,
    max: 65_536,
    description:
      'memory for the answers the back-end does not keep (refusals, REJECTED decisions), per instance without REDIS_URL; the oldest go first',
  }),
  IDEMPOTENCY_REDIS_PREFIX: text({
    default: 'corebridge:idempotency:',
    pattern: /^[A-Za-z0-9:._-]{1,100}$/,
    allowed: '1–100 of A–Z a–z 0–9 : . _ -',
    description: "prefix of the records' Redis keys when REDIS_URL is set",
  }),
});

export interface ServerSettings {
  port: number;
  host: string;
  /** Absolute directory holding the SQLite files and the development issuer's key. */
  dataDir: string;
}

export interface IdempotencySettings {
  /** How long a key and its response are kept. */
  ttlSeconds: number;
  /**
   * How long an in-flight key answers 409 before its holder is presumed hung or gone and a retry may run
   * it again (safe: the back-end finds an effect already committed under the key).
   */
  leaseMs: number;
  /** Bytes of records an instance keeps in memory without REDIS_URL (IDEMPOTENCY_CACHE_MB). */
  maxBytes: number;
  /** Prefix of the records' Redis keys when REDIS_URL is set (IDEMPOTENCY_REDIS_PREFIX). */
  redisPrefix: string;
}

export function loadServerSettings(env: Env): ServerSettings {
  return {
    port: read(env, SERVER_SETTINGS, 'PORT'),
    host: read(env, SERVER_SETTINGS, 'HOST'),
    dataDir: resolve(read(env, SERVER_SETTINGS, 'DATA_DIR')),
  };
}

/**
 * A directory of service files: operations served by COBOL programs, declared from their copybooks
 * (src/api/services/); null: none.
 */
export function loadServicesDir(env: Env): string | null {
  return read(env, SERVICES_SETTINGS, 'SERVICES_DIR');
}

export function loadIdempotencySettings(env: Env): IdempotencySettings {
  return {
    ttlSeconds: read(env, IDEMPOTENCY_SETTINGS, 'IDEMPOTENCY_TTL_SECONDS'),
    leaseMs: read(env, IDEMPOTENCY_SETTINGS, 'IDEMPOTENCY_LEASE_MS'),
    maxBytes: read(env, IDEMPOTENCY_SETTINGS, 'IDEMPOTENCY_CACHE_MB') * 1024 * 1024,
    redisPrefix: read(env, IDEMPOTENCY_SETTINGS, 'IDEMPOTENCY_REDIS_PREFIX'),
  };
}

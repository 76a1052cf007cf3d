/** The protection settings: CORS, rate limits, resource limits, TLS and mutual TLS. */
import { isIP } from 'node:net';
import type { Role } from '../../auth/roles.ts';
import { ConfigError, integer, isSet, parsed, read, section, text, type Env } from '../../settings/schema.ts';

export type RateLimitClass = 'read' | 'write' | 'auth' | 'public';

export interface ProtectionConfig {
  cors: {
    /** Exact origins (scheme://host[:port]) allowed to call from a browser; empty: none. */
    origins: readonly string[];
    /** Access-Control-Allow-Credentials: true (cookies, client certificates) — off unless set. */
    credentials: boolean;
    /** How long a browser may cache a preflight answer. */
    maxAgeSeconds: number;
  };
  rateLimit: {
    windowSeconds: number;
    /** Requests per window for each route class, per principal (or per address when anonymous). */
    perClass: Record<RateLimitClass, number>;
    /** Requests per window from one address that carry credentials, counted before the token is verified. */
    perAddress: number;
    /** Shared counters across instances when set; in-memory otherwise. */
    redisUrl: string | null;
    /** Prefix of the counters' Redis keys (instances that share a limit share it). */
    redisPrefix: string;
    /**
     * Addresses and ranges of the proxies whose X-Forwarded-For is believed (Fastify's trustProxy); empty: the
     * header is ignored and the client is the connection's peer.
     */
    trustProxy: readonly string[];
    /** Failed sign-ins for one user name before it is refused, and for how long (src/identity/login-throttle.ts). */
    loginFailures: number;
    loginLockSeconds: number;
  };
  limits: {
    bodyBytes: number;
    jsonDepth: number;
    jsonArrayLength: number;
    headerBytes: number;
    /** Server-side processing time before the request is answered 504. */
    requestTimeoutMs: number;
    /** Back-end calls in flight at once; beyond, 503 with Retry-After. */
    backendConcurrency: number;
    /** Event-loop overload protection; 0 turns a check off. */
    maxEventLoopDelayMs: number;
    maxEventLoopUtilization: number;
    maxHeapUsedBytes: number;
    retryAfterSeconds: number;
    /** How old the back-end answer of /health/ready may be before a probe asks again. */
    readyIntervalMs: number;
  };
  tls: TlsConfig | null;
}

export interface MutualTlsClient {
  /** Principal subject (client id). */
  subject: string;
  role: Exclude<Role, 'customer'>;
}

export interface TlsConfig {
  certFile: string;
  keyFile: string;
  /** Second HTTPS listener that requires a client certificate from MTLS_CA_FILE; null: none. */
  mutual: {
    port: number;
    caFile: string;
    /** Certificate name (subject CN, or a SAN DNS/URI entry) → client identity. */
    clients: ReadonlyMap<string, MutualTlsClient>;
  } | null;
}

/** proxy-addr's names for groups of ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function proxyEntryValid(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32);
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;
const REQUESTS = { min: 1, max: 1_000_000 };

export const CORS_SETTINGS = section('CORS', {
  CORS_ORIGINS: parsed({
    allowed: 'origins, comma-separated',
    description: 'exact origins, comma-separated, e.g. https://app.example.com',
    parse: (value, name) =>
      value
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
        .map((o) => {
          // Exact origins only: a wildcard or a path would widen or blur what is allowed.
          if (!ORIGIN.test(o))
            throw new ConfigError(name, `must list origins like https://app.example.com, got "${o}"`);
          return o.toLowerCase();
        }),
  }),
  CORS_CREDENTIALS: parsed({
    default: 'false',
    allowed: 'true, false',
    description: 'Access-Control-Allow-Credentials: true (cookies, client certificates)',
    parse(value, name) {
      if (value === 'true' || value === 'false') return value === 'true';
      throw new ConfigError(name, `must be true or false, got "${value}"`);
    },
  }),
  CORS_MAX_AGE_SECONDS: integer({
    default: 600,
    min: 0,
    max: 86_400,
    description: 'how long a browser may cache a preflight answer',
  }),
});

export const RATE_LIMIT_SETTINGS = section('Rate limits and client addresses', {
  TRUST_PROXY: parsed({
    allowed: 'addresses, CIDR ranges, loopback, linklocal, uniquelocal; comma-separated',
    description: 'proxies whose X-Forwarded-For names the client (rate limits, logs); unset: the header is ignored',
    parse: (value, name) =>
      value
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)
        .map((entry) => {
          // A list only: "true" or a hop count would believe whoever connects, so any caller could pick its address.
          if (!proxyEntryValid(entry.toLowerCase())) {
            throw new ConfigError(
              name,
              `must list addresses, CIDR ranges or loopback, linklocal, uniquelocal, got "${entry}"`,
            );
          }
          return entry.toLowerCase();
        }),
  }),
  RATE_LIMIT_MAX: integer({
    default: 100,
    ...REQUESTS,
    description: 'requests per window per principal (or address when anonymous)',
  }),
  RATE_LIMIT_READ_MAX: integer({ ...REQUESTS, description: 'default RATE_LIMIT_MAX' }),
  RATE_LIMIT_WRITE_MAX: integer({ ...REQUESTS, description: 'default RATE_LIMIT_MAX' }),
  RATE_LIMIT_AUTH_MAX: integer({ ...REQUESTS, description: 'default RATE_LIMIT_MAX' }),
  RATE_LIMIT_PUBLIC_MAX: integer({ ...REQUESTS, description: 'default RATE_LIMIT_MAX' }),
  RATE_LIMIT_ADDRESS_MAX: integer({
    default: 1000,
    min: 1,
    max: 10_000_000,
    description: 'requests per window from one address carrying credentials, before verification',
  }),
  RATE_LIMIT_WINDOW_SECONDS: integer({
    default: 60,
    min: 1,
    max: 86_400,
    description: 'the window the limits count in',
  }),
  RATE_LIMIT_LOGIN_FAILURES: integer({
    default: 5,
    min: 1,
    max: 1000,
    description: 'failed sign-ins for one user name, from any address, before the name is refused',
  }),
  RATE_LIMIT_LOGIN_LOCK_SECONDS: integer({
    default: 900,
    min: 1,
    max: 86_400,
    description: 'how long after its last failure a refused name stays refused (failures count within it)',
  }),
  REDIS_URL: parsed({
    allowed: 'redis:// or rediss:// URL',
    description: 'redis://127.0.0.1:6379: counters and idempotency records shared by instances',
    parse(value, name) {
      if (value && !/^rediss?:\/\/\S+$/.test(value)) throw new ConfigError(name, 'must be a redis:// or rediss:// URL');
      return value || null;
    },
  }),
  RATE_LIMIT_REDIS_PREFIX: text({
    default: 'corebridge:ratelimit:',
    pattern: /^[A-Za-z0-9:._-]{1,100}$/,
    allowed: '1–100 of A–Z a–z 0–9 : . _ -',
    invalid: 'must be 1–100 characters of A–Z a–z 0–9 : . _ -',
    description: "prefix of the counters' Redis keys",
  }),
});

export const LIMIT_SETTINGS = section('Resource limits and overload', {
  BODY_LIMIT_BYTES: integer({ default: 16_384, min: 256, max: 10_485_760, description: 'largest request body' }),
  JSON_MAX_DEPTH: integer({ default: 10, min: 2, max: 1000, description: 'deepest nesting of a JSON body' }),
  JSON_MAX_ARRAY_LENGTH: integer({ default: 100, min: 1, max: 1_000_000, description: 'longest array in a JSON body' }),
  MAX_HEADER_BYTES: integer({ default: 16_384, min: 1024, max: 1_048_576, description: 'largest request head' }),
  REQUEST_TIMEOUT_MS: integer({
    default: 5000,
    min: 10,
    max: 600_000,
    description: 'processing time before a request is answered 504',
  }),
  BACKEND_MAX_CONCURRENT: integer({
    default: 64,
    min: 1,
    max: 100_000,
    description: 'back-end calls in flight at once; beyond, 503 with Retry-After',
  }),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: integer({ default: 1000, min: 0, max: 60_000, description: '0 = off' }),
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: parsed({
    default: '0',
    allowed: '0–1',
    description: '0 = off; 0–1',
    parse(value, name) {
      if (!/^(0(\.[0-9]+)?|1(\.0+)?)$/.test(value)) {
        throw new ConfigError(name, `must be a number from 0 to 1, got "${value}"`);
      }
      return Number(value);
    },
  }),
  OVERLOAD_MAX_HEAP_USED_MB: integer({ default: 0, min: 0, max: 1_048_576, description: '0 = off' }),
  OVERLOAD_RETRY_AFTER_SECONDS: integer({
    default: 5,
    min: 1,
    max: 3600,
    description: 'Retry-After of an overload 503',
  }),
  HEALTH_READY_INTERVAL_MS: integer({
    default: 1000,
    min: 100,
    max: 60_000,
    description: '/health/ready asks the back-ends at most once per interval',
  }),
});

export const TLS_SETTINGS = section('TLS', {
  TLS_CERT_FILE: text({ allowed: 'PEM file', description: 'PEM certificate (chain): PORT serves HTTPS' }),
  TLS_KEY_FILE: text({ allowed: 'PEM file', description: 'its private key' }),
  MTLS_PORT: integer({ min: 0, max: 65535, description: 'a second HTTPS listener that requires client certificates' }),
  MTLS_CA_FILE: text({ allowed: 'PEM file', description: 'the CA client certificates must chain to' }),
  MTLS_CLIENTS: parsed({
    allowed: 'name=client-id:agent|partner, comma-separated',
    description: 'certificate-name=client-id:role,…',
    parse(value, name) {
      const clients = new Map<string, MutualTlsClient>();
      for (const entry of value
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const match = /^([^=\s]+)=([A-Za-z0-9._-]{1,64}):(agent|partner)$/.exec(entry);
        if (!match) throw new ConfigError(name, `entries are certificate-name=client-id:agent|partner, got "${entry}"`);
        clients.set(match[1]!, { subject: match[2]!, role: match[3] as MutualTlsClient['role'] });
      }
      return clients;
    },
  }),
});

function tls(env: Env): TlsConfig | null {
  const certFile = read(env, TLS_SETTINGS, 'TLS_CERT_FILE');
  const keyFile = read(env, TLS_SETTINGS, 'TLS_KEY_FILE');
  const mutual = isSet(env, 'MTLS_PORT');
  if (!certFile !== !keyFile) {
    throw new ConfigError(certFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE', 'must be set together with the other TLS file');
  }
  if (!certFile || !keyFile) {
    if (mutual) throw new ConfigError('MTLS_PORT', 'needs TLS_CERT_FILE and TLS_KEY_FILE');
    return null;
  }
  if (!mutual) return { certFile, keyFile, mutual: null };
  const caFile = read(env, TLS_SETTINGS, 'MTLS_CA_FILE');
  if (!caFile) throw new ConfigError('MTLS_CA_FILE', 'is required with MTLS_PORT');
  const clients = read(env, TLS_SETTINGS, 'MTLS_CLIENTS');
  if (clients.size === 0) throw new ConfigError('MTLS_CLIENTS', 'must name at least one client with MTLS_PORT');
  return { certFile, keyFile, mutual: { port: read(env, TLS_SETTINGS, 'MTLS_PORT') ?? 0, caFile, clients } };
}

export function loadProtectionConfig(env: Env): ProtectionConfig {
  const perClass = read(env, RATE_LIMIT_SETTINGS, 'RATE_LIMIT_MAX');
  const redisUrl = read(env, RATE_LIMIT_SETTINGS, 'REDIS_URL');
  type RateName = keyof typeof RATE_LIMIT_SETTINGS.settings & string;
  type LimitName = keyof typeof LIMIT_SETTINGS.settings & string;
  const rate = <K extends RateName>(name: K) => read(env, RATE_LIMIT_SETTINGS, name);
  const limit = <K extends LimitName>(name: K) => read(env, LIMIT_SETTINGS, name);
  return {
    cors: {
      origins: read(env, CORS_SETTINGS, 'CORS_ORIGINS'),
      credentials: read(env, CORS_SETTINGS, 'CORS_CREDENTIALS'),
      maxAgeSeconds: read(env, CORS_SETTINGS, 'CORS_MAX_AGE_SECONDS'),
    },
    rateLimit: {
      windowSeconds: rate('RATE_LIMIT_WINDOW_SECONDS'),
      perClass: {
        read: rate('RATE_LIMIT_READ_MAX') ?? perClass,
        write: rate('RATE_LIMIT_WRITE_MAX') ?? perClass,
        auth: rate('RATE_LIMIT_AUTH_MAX') ?? perClass,
        public: rate('RATE_LIMIT_PUBLIC_MAX') ?? perClass,
      },
      perAddress: rate('RATE_LIMIT_ADDRESS_MAX'),
      redisUrl,
      redisPrefix: rate('RATE_LIMIT_REDIS_PREFIX'),
      trustProxy: rate('TRUST_PROXY'),
      loginFailures: rate('RATE_LIMIT_LOGIN_FAILURES'),
      loginLockSeconds: rate('RATE_LIMIT_LOGIN_LOCK_SECONDS'),
    },
    limits: {
      bodyBytes: limit('BODY_LIMIT_BYTES'),
      jsonDepth: limit('JSON_MAX_DEPTH'),
      jsonArrayLength: limit('JSON_MAX_ARRAY_LENGTH'),
      headerBytes: limit('MAX_HEADER_BYTES'),
      requestTimeoutMs: limit('REQUEST_TIMEOUT_MS'),
      backendConcurrency: limit('BACKEND_MAX_CONCURRENT'),
      maxEventLoopDelayMs: limit('OVERLOAD_MAX_EVENT_LOOP_DELAY_MS'),
      maxEventLoopUtilization: limit('OVERLOAD_MAX_EVENT_LOOP_UTILIZATION'),
      maxHeapUsedBytes: limit('OVERLOAD_MAX_HEAP_USED_MB') * 1_048_576,
      retryAfterSeconds: limit('OVERLOAD_RETRY_AFTER_SECONDS'),
      readyIntervalMs: limit('HEALTH_READY_INTERVAL_MS'),
    },
    tls: tls(env),
  };
}
